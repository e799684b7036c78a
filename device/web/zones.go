package web

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// zoneDir is where the system keeps its time zones.
const zoneDir = "/usr/share/zoneinfo"

// common are offered when the system lists no time zones of its own.
var common = []string{
	"UTC", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome",
	"Europe/Amsterdam", "Europe/Brussels", "Europe/Vienna", "Europe/Zurich", "Europe/Stockholm", "Europe/Oslo", "Europe/Copenhagen",
	"Europe/Helsinki", "Europe/Warsaw", "Europe/Prague", "Europe/Athens", "Europe/Istanbul", "Europe/Kyiv", "Europe/Moscow",
	"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Anchorage", "America/Toronto",
	"America/Vancouver", "America/Mexico_City", "America/Bogota", "America/Sao_Paulo", "America/Buenos_Aires", "Pacific/Honolulu",
	"Africa/Cairo", "Africa/Lagos", "Africa/Nairobi", "Africa/Johannesburg", "Asia/Dubai", "Asia/Kolkata", "Asia/Bangkok",
	"Asia/Singapore", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Tokyo", "Asia/Seoul", "Australia/Perth", "Australia/Sydney",
	"Pacific/Auckland",
}

var (
	zonesOnce sync.Once
	zoneList  []string
)

// zones are the time zones a person picks from: the system's
// Area/Location names, or a common few when it has none.
func zones() []string {
	zonesOnce.Do(func() { zoneList = readZones(os.DirFS(zoneDir)) })
	return zoneList
}

func readZones(dir fs.FS) []string {
	var out []string
	fs.WalkDir(dir, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		area, _, nested := strings.Cut(p, "/")
		if d.IsDir() {
			if p != "." && (!unicode.IsUpper(rune(p[0])) || area == "Etc" || area == "SystemV") {
				return fs.SkipDir // posix/, right/, legacy names
			}
			return nil
		}
		if nested && !strings.Contains(p, ".") {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		return common
	}
	slices.Sort(out)
	return append([]string{"UTC"}, out...)
}
