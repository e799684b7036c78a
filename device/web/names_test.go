package web

import (
	"strconv"
	"testing"
	"time"
)

// TestNamesKeepTheLastFewAdded: a machine on the LAN that answers for
// each name mDNS claims moves the box on to hark-2, hark-3, ... for as
// long as it likes, and each is added to the page's names. The page
// answers to the last few, and does not keep every name ever claimed
// (looked over at each refresh) for as long as it runs.
func TestNamesKeepTheLastFewAdded(t *testing.T) {
	n := newNames([]string{"speaker.lan"}, time.Now)
	const claimed = 1000
	for i := 2; i <= claimed; i++ {
		n.add("hark-" + strconv.Itoa(i) + ".local")
	}
	for _, host := range []string{"hark-" + strconv.Itoa(claimed) + ".local", "hark-" + strconv.Itoa(claimed-maxAdded+1) + ".local:8080", "speaker.lan", "localhost"} {
		if !n.ours(host) {
			t.Errorf("%s is not the page's after %d names claimed; want it served", host, claimed-1)
		}
	}
	if n.ours("hark-2.local") {
		t.Errorf("hark-2.local is the page's still after %d names claimed; want only the last %d", claimed-1, maxAdded)
	}
	n.mu.Lock()
	kept := len(n.added)
	n.mu.Unlock()
	if kept > maxAdded {
		t.Errorf("%d names kept after %d claimed; want at most %d", kept, claimed-1, maxAdded)
	}
}
