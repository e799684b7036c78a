//go:build race

package endpoint_test

// race reports a test binary built with the race detector.
const race = true
