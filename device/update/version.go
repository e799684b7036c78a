package update

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a release number: dot-separated numbers ("1.4.2"), with an
// optional leading "v" and an optional "-suffix" (a pre-release, which
// sorts before the release itself).
type Version struct {
	parts []int
	pre   string
}

// preRelease is what may follow a release number: dot-separated letters,
// digits and hyphens (and a "+" build tag). A version names a file, so
// it holds no "/" and no "..".
var preRelease = regexp.MustCompile(`^[0-9A-Za-z-]+([.+][0-9A-Za-z-]+)*$`)

// ParseVersion reads a release number.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	var v Version
	tagged := false
	if i := strings.IndexAny(t, "-+"); i >= 0 {
		t, v.pre, tagged = t[:i], t[i+1:], true
	}
	if t == "" || tagged && !preRelease.MatchString(v.pre) {
		return Version{}, fmt.Errorf("version %q is not a release number like 1.4.2", s)
	}
	for _, p := range strings.Split(t, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("version %q is not a release number like 1.4.2", s)
		}
		v.parts = append(v.parts, n)
	}
	return v, nil
}

// Compare returns -1, 0 or 1 as v is older than, the same as, or newer
// than w. Missing parts count as zero: 1.4 is 1.4.0.
func (v Version) Compare(w Version) int {
	for i := range max(len(v.parts), len(w.parts)) {
		a, b := at(v.parts, i), at(w.parts, i)
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.pre == w.pre:
		return 0
	case v.pre == "":
		return 1
	case w.pre == "":
		return -1
	case v.pre < w.pre:
		return -1
	}
	return 1
}

func at(p []int, i int) int {
	if i < len(p) {
		return p[i]
	}
	return 0
}
