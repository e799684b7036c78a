package network

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n%s\nwant:\n%s", name, got, want)
	}
}

var testAP = AP{SSID: "Hark-4821", Passphrase: "3841927650", Address: DefaultAPAddress}

// TestAccessPointFiles: the access point's hostapd and dnsmasq files, as
// the image's units read them (golden files; go test -update rewrites
// them).
func TestAccessPointFiles(t *testing.T) {
	golden(t, "hostapd.conf", Hostapd(testAP, "wlan0", APDir))
	golden(t, "dnsmasq.conf", Dnsmasq(testAP, "wlan0"))
	odd := Hostapd(AP{SSID: `Hark "büro"`, Passphrase: "3841927650"}, "wlan0", APDir)
	if !strings.Contains(odd, "ssid2=4861726b202262c3bc726f22\n") {
		t.Errorf("an SSID with a quote and an umlaut is not written in hex:\n%s", odd)
	}
}

// TestBoardAccessPoint: on a board, opening the access point writes its
// files and the file that has systemd start it; closing removes that file
// and asks hostapd to end over its control socket.
func TestBoardAccessPoint(t *testing.T) {
	dir := t.TempDir()
	var ended string
	a := &boardAP{dir: dir, iface: "wlan0", end: func(_ context.Context, ctrl string) error { ended = ctrl; return nil }}
	if err := a.OpenAP(t.Context(), testAP); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{HostapdConf, DnsmasqConf, Wanted} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if err := a.CloseAP(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, Wanted)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the wish for the access point is still there: %v", err)
	}
	if ended != filepath.Join(dir, "ctrl", "wlan0") {
		t.Errorf("hostapd was asked to end at %q", ended)
	}
	if err := hostapdTerminate(t.Context(), filepath.Join(dir, "ctrl", "wlan0")); err != nil {
		t.Errorf("ending a hostapd that does not run: %v", err)
	}
}

func TestParseScan(t *testing.T) {
	out := "bssid / frequency / signal level / flags / ssid\n" +
		"aa:bb:cc:dd:ee:01\t2437\t-48\t[WPA2-PSK-CCMP][ESS]\tHome\n" +
		"aa:bb:cc:dd:ee:02\t5180\t-40\t[WPA2-PSK-CCMP][ESS]\tHome\n" +
		"aa:bb:cc:dd:ee:03\t2412\t-83\t[ESS]\tCaf\\xc3\\xa9 guest\n" +
		"aa:bb:cc:dd:ee:04\t2462\t-70\t[WPA2-PSK-CCMP][ESS]\t\n"
	got := parseScan(out)
	want := []Seen{{SSID: "Home", Signal: -40, Secure: true}, {SSID: "Café guest", Signal: -83}}
	if !slices.Equal(got, want) {
		t.Errorf("parseScan = %+v, want %+v", got, want)
	}
	if b := got[0].Bars(); b != 4 {
		t.Errorf("-40 dBm is %d bars", b)
	}
}

// TestAwaitJoin: a join is done once wpa_supplicant has completed and the
// interface has an address; a network that keeps failing its handshake
// took the wrong passphrase; one that never answers is said to be out of
// reach.
func TestAwaitJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		states := []string{"SCANNING", "ASSOCIATING", "COMPLETED"}
		i := 0
		cli := func(_ context.Context, args ...string) (string, error) {
			st := states[min(i, len(states)-1)]
			i++
			return "ssid=Home\nwpa_state=" + st + "\nip_address=192.168.1.57", nil
		}
		addr, err := awaitJoin(t.Context(), cli, "Home", time.Minute, time.Second, func() (netip.Addr, bool) { return netip.Addr{}, false })
		if err != nil || addr != netip.MustParseAddr("192.168.1.57") {
			t.Errorf("joined at %v, %v", addr, err)
		}
		states, i = []string{"4WAY_HANDSHAKE", "DISCONNECTED"}, 0
		flip := func(ctx context.Context, args ...string) (string, error) {
			i++
			return "ssid=Home\nwpa_state=" + states[i%2], nil
		}
		var fe *FieldError
		if _, err := awaitJoin(t.Context(), flip, "Home", 10*time.Second, time.Second, nil); !errors.As(err, &fe) || fe.Field != "psk" {
			t.Errorf("a refused passphrase: %v", err)
		}
		silent := func(context.Context, ...string) (string, error) { return "wpa_state=SCANNING", nil }
		if _, err := awaitJoin(t.Context(), silent, "Home", 10*time.Second, time.Second, nil); err == nil || !strings.Contains(err.Error(), "is it in reach?") {
			t.Errorf("a network out of reach: %v", err)
		}
	})
}

// TestAwaitJoinEscapedName: wpa_cli's status prints the SSID escaped, as
// scan_results does (bytes outside printable ASCII as \xHH, a quote as
// \", a backslash as \\); a join of such a network is seen once it
// completes, not taken for a network out of reach (which would open the
// access point again).
func TestAwaitJoinEscapedName(t *testing.T) {
	for _, tc := range []struct{ ssid, printed string }{
		{"Café", `Caf\xc3\xa9`},
		{"Wohnung Müller", `Wohnung M\xc3\xbcller`},
		{`Bob's "fast" net`, `Bob's \"fast\" net`},
		{`C:\Net`, `C:\\Net`},
		{"Home ", "Home "},
	} {
		t.Run(tc.ssid, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cli := func(context.Context, ...string) (string, error) {
					return "bssid=aa:bb:cc:dd:ee:ff\nfreq=2437\nssid=" + tc.printed + "\nid=0\nmode=station\nkey_mgmt=WPA2-PSK\nwpa_state=COMPLETED\nip_address=192.168.1.57", nil
				}
				addr, err := awaitJoin(t.Context(), cli, tc.ssid, 45*time.Second, time.Second, func() (netip.Addr, bool) { return netip.Addr{}, false })
				if want := netip.MustParseAddr("192.168.1.57"); err != nil || addr != want {
					t.Errorf("status ssid=%s, COMPLETED: got %v, %v; want %v", tc.printed, addr, err, want)
				}
			})
		})
	}
}

func TestRemove(t *testing.T) {
	w := &WiFi{Path: filepath.Join(t.TempDir(), "wpa.conf")}
	w.Add(t.Context(), "Home", "correct horse")
	w.Add(t.Context(), "Office", "")
	if err := w.Remove(t.Context(), "Home"); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Networks(); !slices.Equal(got, []string{"Office"}) {
		t.Errorf("after forgetting Home: %q", got)
	}
	var fe *FieldError
	if err := w.Remove(t.Context(), "Home"); !errors.As(err, &fe) {
		t.Errorf("forgetting it again: %v", err)
	}
	b, _ := os.ReadFile(w.Path)
	if strings.Contains(string(b), "correct horse") {
		t.Errorf("the forgotten passphrase is still in the file:\n%s", b)
	}
}

func TestSpoken(t *testing.T) {
	for in, want := range map[string]string{"Hark-4821": "Hark 4 8 2 1", "3841927650": "3 8 4 1 9 2 7 6 5 0"} {
		if got := Spoken(in); got != want {
			t.Errorf("Spoken(%q) = %q, want %q", in, got, want)
		}
	}
}

// radio is a Link and AccessPoint the test drives: offline until a
// network of its own is joined.
type radio struct {
	mu        sync.Mutex
	online    bool
	fails     error // Online's error while set: the box cannot tell
	open      bool
	opened    int
	psk       map[string]string
	openTakes time.Duration // how long the access point takes to open
}

func (r *radio) Online(context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fails != nil {
		return false, r.fails
	}
	return r.online, nil
}

func (r *radio) set(f func(r *radio)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r)
}

func (r *radio) Scan(context.Context) ([]Seen, error) {
	return []Seen{{SSID: "Home", Signal: -50, Secure: true}}, nil
}

func (r *radio) Join(ctx context.Context, ssid, psk string) (netip.Addr, error) {
	time.Sleep(5 * time.Second) // associating
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open {
		return netip.Addr{}, errors.New("the radio is still an access point")
	}
	if want, ok := r.psk[ssid]; !ok || want != psk {
		return netip.Addr{}, &FieldError{"psk", "the network did not take that passphrase"}
	}
	r.online = true
	return netip.MustParseAddr("192.168.1.57"), nil
}

func (r *radio) OpenAP(context.Context, AP) error {
	r.mu.Lock()
	takes := r.openTakes
	r.mu.Unlock()
	time.Sleep(takes)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open, r.opened = true, r.opened+1
	return nil
}

func (r *radio) CloseAP(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open = false
	return nil
}

// TestHotspot: a box with no network kept opens its access point at once
// and says so; a wrong passphrase from the captive page opens it again
// with the reason; the right one joins, closes it for good and says where
// the page is.
func TestHotspot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &radio{psk: map[string]string{"Home": "correct horse battery"}}
		var said []string
		var mu sync.Mutex
		h, err := NewHotspot(HotspotOptions{Link: r, AP: r, Own: testAP,
			Say: func(_ context.Context, s string) { mu.Lock(); said = append(said, s); mu.Unlock() },
			Joined: func(ssid string, a netip.Addr) string {
				return "I'm on " + ssid + " now: open http://" + a.String() + ":8080"
			}})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Join("Home", "x"); err == nil {
			t.Error("a passphrase of one letter was taken")
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { h.Run(ctx); close(done) }()
		synctest.Wait()
		if st := h.State(); !st.Open || len(st.Seen) != 1 || st.Seen[0].SSID != "Home" {
			t.Fatalf("with no network kept: %+v, want the access point open with the scan", st)
		}
		if len(said) != 1 || !strings.Contains(said[0], "Hark 4 8 2 1") {
			t.Errorf("said %q", said)
		}
		r.mu.Lock()
		r.openTakes = 2 * time.Second
		r.mu.Unlock()
		if err := h.Join("Home", "wrong horse"); err != nil {
			t.Fatal(err)
		}
		// While the access point opens again the page still has a join to
		// show: a phone that looks then is not sent away.
		time.Sleep(6 * time.Second)
		synctest.Wait()
		if st := h.State(); st.Joining != "Home" || st.Open || st.Failed != "" {
			t.Errorf("with the access point opening again: %+v, want still joining", st)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if st := h.State(); !st.Open || !strings.Contains(st.Failed, "did not take that passphrase") || r.opened != 2 {
			t.Errorf("after a wrong passphrase: %+v, opened %d times", st, r.opened)
		}
		if err := h.Join("Home", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(6 * time.Second)
		synctest.Wait()
		st := h.State()
		if st.Open || st.Joined != "Home" || st.Address != netip.MustParseAddr("192.168.1.57") || st.Failed != "" {
			t.Errorf("after the right passphrase: %+v", st)
		}
		if last := said[len(said)-1]; last != "I'm on Home now: open http://192.168.1.57:8080" {
			t.Errorf("the last thing said: %q", last)
		}
		if err := h.Join("Home", "correct horse battery"); !errors.Is(err, ErrNotOpen) {
			t.Errorf("a join with the access point closed: %v", err)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if r.opened != 2 {
			t.Errorf("the access point opened again while online: %d", r.opened)
		}
		cancel()
		<-done
	})
}

// TestHotspotGraceAndRetry: a box with networks kept waits Grace before
// it opens its access point; with nobody joining it tries the kept
// networks again every Retry, and stays on one that came back.
func TestHotspotGraceAndRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &radio{}
		h, _ := NewHotspot(HotspotOptions{Link: r, AP: r, Own: testAP, Known: func(context.Context) int { return 1 }})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go h.Run(ctx)
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.State().Open {
			t.Fatal("the access point opened before the grace ran out")
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if !h.State().Open {
			t.Fatal("the access point is not open after the grace")
		}
		// opened at 2 min; closed from 12 min, for a minute
		time.Sleep(9*time.Minute + 30*time.Second)
		synctest.Wait()
		if h.State().Open {
			t.Fatal("the access point did not close to try the networks kept")
		}
		r.mu.Lock()
		r.online = true // the router is back
		r.mu.Unlock()
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.State().Open || r.opened != 1 {
			t.Errorf("with the network back: open %v, opened %d times", h.State().Open, r.opened)
		}
	})
}

// TestHotspotClosesOnceOnline: a box with no Wi-Fi kept, on a cable, boots
// before the router after a power cut and opens its access point. Once
// the router is back and the cable has an address, the box closes it
// within a check, and keeps it closed.
func TestHotspotClosesOnceOnline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &radio{}
		h, _ := NewHotspot(HotspotOptions{Link: r, AP: r, Own: testAP})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go h.Run(ctx)
		synctest.Wait()
		if !h.State().Open {
			t.Fatal("offline with no Wi-Fi kept: the access point is not open")
		}
		r.set(func(r *radio) { r.online = true })
		time.Sleep(10 * time.Second) // Check
		synctest.Wait()
		if h.State().Open || r.open {
			t.Errorf("a check after the box came online over its cable: open %v (the radio's %v), want closed", h.State().Open, r.open)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if h.State().Open || r.opened != 1 {
			t.Errorf("an hour online: open %v, opened %d times; want closed, opened once", h.State().Open, r.opened)
		}
	})
}

// TestHotspotStaysOpenForAJoin: the access point is not closed under a
// phone that asked, through it, for a network to be joined; once the
// box decides to close it, a join is refused as with it closed.
func TestHotspotStaysOpenForAJoin(t *testing.T) {
	r := &radio{open: true}
	h, _ := NewHotspot(HotspotOptions{Link: r, AP: r, Own: testAP})
	h.set(func(st *HotspotState) { st.Open = true })
	if err := h.Join("Home", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if h.closeUnlessJoining(t.Context()) || !h.State().Open || !r.open {
		t.Errorf("closed the access point under a join: open %v (the radio's %v)", h.State().Open, r.open)
	}
	<-h.join
	h.set(func(st *HotspotState) { st.Joining = "" })
	if !h.closeUnlessJoining(t.Context()) || h.State().Open || r.open {
		t.Errorf("with no join under way: open %v (the radio's %v), want closed", h.State().Open, r.open)
	}
	if err := h.Join("Home", "correct horse battery"); !errors.Is(err, ErrNotOpen) {
		t.Errorf("a join once closed: %v, want ErrNotOpen", err)
	}
}

// TestHotspotCannotTell: a box that cannot tell whether it is online (its
// interfaces cannot be listed) is not taken for online. A failure that
// lasts Grace opens the access point, even with no Wi-Fi kept, so that
// the box can still be set up, and it stays open while the box cannot
// tell; one that passes sooner opens nothing.
func TestHotspotCannotTell(t *testing.T) {
	cannot := errors.New("network: list the interfaces: route ip+net: netlinkrib: address family not supported by protocol")
	for _, kept := range []int{0, 1} {
		t.Run(fmt.Sprintf("%d kept", kept), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &radio{online: true, fails: cannot}
				h, _ := NewHotspot(HotspotOptions{Link: r, AP: r, Own: testAP, Known: func(context.Context) int { return kept }})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go h.Run(ctx)
				time.Sleep(time.Minute)
				synctest.Wait()
				if h.State().Open {
					t.Fatal("the access point opened a minute into a failure that may pass")
				}
				time.Sleep(time.Minute + 10*time.Second) // Grace, and a check
				synctest.Wait()
				if !h.State().Open {
					t.Fatal("unable to tell for longer than Grace: the access point is not open")
				}
				if kept > 0 {
					return // it tries the networks kept every Retry, as when offline
				}
				time.Sleep(time.Hour)
				synctest.Wait()
				if !h.State().Open || r.opened != 1 {
					t.Errorf("an hour unable to tell: open %v, opened %d times; want open, opened once", h.State().Open, r.opened)
				}
			})
		})
	}
	synctest.Test(t, func(t *testing.T) {
		r := &radio{online: true, fails: cannot}
		h, _ := NewHotspot(HotspotOptions{Link: r, AP: r, Own: testAP})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go h.Run(ctx)
		time.Sleep(time.Minute)
		r.set(func(r *radio) { r.fails = nil })
		time.Sleep(time.Hour)
		synctest.Wait()
		if r.opened != 0 {
			t.Errorf("a failure for a minute on a box online: the access point opened %d times", r.opened)
		}
	})
}
