package sandboxtest

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFamilies(t *testing.T) {
	unit := filepath.Join(t.TempDir(), "x.service")
	os.WriteFile(unit, []byte("[Service]\n# RestrictAddressFamilies=AF_PACKET\nRestrictAddressFamilies=AF_PACKET\nRestrictAddressFamilies=\nRestrictAddressFamilies=AF_UNIX AF_INET\nRestrictAddressFamilies=AF_NETLINK\n"), 0o644)
	if got, want := Families(t, unit), []string{"AF_UNIX", "AF_INET", "AF_NETLINK"}; !slices.Equal(got, want) {
		t.Errorf("Families = %v, want %v (an empty line clears those before)", got, want)
	}
}

func TestPattern(t *testing.T) {
	for name, want := range map[string]string{
		"TestX":            "^TestX$",
		"TestX/Café_(ok)":  `^TestX$/^Café_\(ok\)$`,
		"TestX/a.b/2_kept": `^TestX$/^a\.b$/^2_kept$`,
	} {
		if got := pattern(name); got != want {
			t.Errorf("pattern(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestRestrict: under a filter that allows unix and IP sockets only, the
// interfaces cannot be listed (Go reads them over netlink).
func TestRestrict(t *testing.T) {
	Run(t, func(t *testing.T) {
		if _, err := net.Interfaces(); err != nil {
			t.Fatalf("before the filter: %v", err)
		}
		Restrict(t, []string{"AF_UNIX", "AF_INET", "AF_INET6"})
		if ifs, err := net.Interfaces(); err == nil {
			t.Errorf("under a filter without AF_NETLINK the interfaces were listed: %v", ifs)
		}
	})
}
