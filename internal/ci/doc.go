// Package ci holds the tests of the set-up scripts in .ci: what a fresh
// machine runs before `make test`.
package ci
