package network

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
)

// Seen is a Wi-Fi network in reach.
type Seen struct {
	SSID string `json:"ssid"`
	// Signal is its strength in dBm (-30 is next to it, -90 barely).
	Signal int  `json:"signal"`
	Secure bool `json:"secure"` // it asks for a passphrase
}

// Bars is the signal as a phone shows it: 1 to 4.
func (s Seen) Bars() int {
	switch {
	case s.Signal >= -55:
		return 4
	case s.Signal >= -67:
		return 3
	case s.Signal >= -78:
		return 2
	}
	return 1
}

// AP is the box's own access point.
type AP struct {
	SSID       string
	Passphrase string // WPA2; 8 to 63 characters
	// Address is the box's address on it; the phones that join get
	// theirs from the same network.
	Address netip.Prefix
}

// DefaultAPAddress is the box's address on its own access point.
var DefaultAPAddress = netip.MustParsePrefix("192.168.4.1/24")

// Link is the box's connection to a network, as the hotspot drives it.
type Link interface {
	// Online reports whether the box is on a network: a Wi-Fi joined or a
	// cable plugged in (its own access point does not count).
	Online(ctx context.Context) (bool, error)
	// Scan lists the Wi-Fi networks in reach, strongest first.
	Scan(ctx context.Context) ([]Seen, error)
	// Join keeps the network (as AddWiFi does), joins it and returns the
	// box's address there once it has one. A wrong passphrase, or a
	// network that does not answer within a minute, is an error that
	// says so; the network stays kept.
	Join(ctx context.Context, ssid, psk string) (netip.Addr, error)
}

// AccessPoint is the box's own Wi-Fi network.
type AccessPoint interface {
	// OpenAP opens the access point (the radio leaves any network).
	OpenAP(ctx context.Context, ap AP) error
	// CloseAP closes it; the radio goes back to the networks kept.
	CloseAP(ctx context.Context) error
}

// HotspotOptions configure a Hotspot. Link, AP and AP.SSID are required.
type HotspotOptions struct {
	Link Link
	AP   AccessPoint
	// Own is the box's access point's name, passphrase and address.
	Own AP
	// Known counts the Wi-Fi networks kept; none opens the access point
	// at once when the box is offline.
	Known func(ctx context.Context) int
	// Grace is how long the box may be offline, with networks kept, or
	// unable to tell whether it is online, before it opens its access
	// point; default 2 minutes.
	Grace time.Duration
	// Retry is how often, with the access point open and nobody joining
	// through it, the box closes it to try the networks kept again (for a
	// minute); default 10 minutes.
	Retry time.Duration
	// Check is how often the box looks whether it is online, its access
	// point open or not; default 10 s.
	Check time.Duration
	// Say speaks a sentence on the box; Joined tells what to say once it
	// joined a network at addr (where to find its page). Both may be nil.
	Say    func(ctx context.Context, text string)
	Joined func(ssid string, addr netip.Addr) string
	// Lang is the language the box speaks in; the zero value is English.
	Lang locale.Lang
	Log  *slog.Logger
}

// HotspotState is the hotspot as its captive page shows it.
type HotspotState struct {
	// Open is set while the box's own access point is open.
	Open bool
	// SSID is the access point's name.
	SSID string
	// Seen are the networks in reach at the last scan, strongest first.
	Seen []Seen
	// Joining is the network being joined, while it is; Joined the last
	// one joined and the box's address there; Failed why the last join
	// failed.
	Joining, Joined string
	Address         netip.Addr
	Failed          string
}

// Hotspot keeps a box without a network reachable: when it has been
// offline for a while (at once when no Wi-Fi is kept) it opens its own
// access point, where a captive page lists the networks in reach and takes
// one's passphrase; it then closes the access point, joins, and says where
// its page is. A join that fails opens the access point again. A box that
// comes online by other means while it is open (a cable, once the router
// is back) closes it, unless a phone on it is joining a network.
type Hotspot struct {
	o    HotspotOptions
	log  *slog.Logger
	join chan joinRequest

	mu sync.Mutex
	st HotspotState
}

type joinRequest struct{ ssid, psk string }

// NewHotspot returns a hotspot over o; nothing happens until Run.
func NewHotspot(o HotspotOptions) (*Hotspot, error) {
	if o.Link == nil || o.AP == nil || o.Own.SSID == "" {
		return nil, errors.New("network: a hotspot needs a link, an access point and its name")
	}
	if err := checkPSK(o.Own.Passphrase); err != nil || o.Own.Passphrase == "" {
		return nil, fmt.Errorf("network: the access point's passphrase: %w", err)
	}
	if !o.Own.Address.IsValid() {
		o.Own.Address = DefaultAPAddress
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Minute
	}
	if o.Retry <= 0 {
		o.Retry = 10 * time.Minute
	}
	if o.Check <= 0 {
		o.Check = 10 * time.Second
	}
	if o.Known == nil {
		o.Known = func(context.Context) int { return 0 }
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hotspot{o: o, log: log.With("pkg", "network"), join: make(chan joinRequest, 1), st: HotspotState{SSID: o.Own.SSID}}, nil
}

// State is the hotspot now.
func (h *Hotspot) State() HotspotState {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.st
	st.Seen = slices.Clone(st.Seen)
	return st
}

// Own is the access point's name, passphrase and address.
func (h *Hotspot) Own() AP { return h.o.Own }

// ErrNotOpen is Join's error while the access point is closed: the box is
// on a network, and its network page adds Wi-Fi.
var ErrNotOpen = errors.New("network: the box's own Wi-Fi is not open")

// Join asks for the network to be joined, after checking the name and
// passphrase (a *FieldError); the hotspot closes its access point, joins,
// and opens it again if that fails. It returns at once: State says how it
// went.
func (h *Hotspot) Join(ssid, psk string) error {
	if err := checkSSID(ssid); err != nil {
		return err
	}
	if err := checkPSK(psk); err != nil {
		return err
	}
	h.mu.Lock()
	open := h.st.Open
	if open {
		h.st.Joining, h.st.Failed = ssid, ""
	}
	h.mu.Unlock()
	if !open {
		return ErrNotOpen
	}
	select {
	case h.join <- joinRequest{ssid, psk}:
		return nil
	default:
		return fmt.Errorf("network: already joining %q", h.State().Joining)
	}
}

func (h *Hotspot) set(f func(*HotspotState)) {
	h.mu.Lock()
	f(&h.st)
	h.mu.Unlock()
}

func (h *Hotspot) say(ctx context.Context, text string) {
	if h.o.Say != nil && text != "" {
		h.o.Say(ctx, text)
	}
}

// Run keeps the box reachable until ctx is done; it closes the access
// point it opened before it returns.
//
// A box that cannot tell whether it is online (Online fails: the
// interfaces cannot be listed) is taken for offline once that has lasted
// Grace, with networks kept or not: a passing failure opens nothing, and
// a lasting one does not leave the box unreachable, with no way to set it
// up.
func (h *Hotspot) Run(ctx context.Context) {
	tick := time.NewTicker(h.o.Check)
	defer tick.Stop()
	var offline, unsure time.Time // since when; zero while online, and while the box can tell
	for {
		online, err := h.o.Link.Online(ctx)
		switch {
		case err != nil && unsure.IsZero():
			h.log.Warn("cannot tell whether the box is online", "err", err)
			unsure = time.Now()
		case err == nil && !unsure.IsZero():
			h.log.Info("can tell again whether the box is online", "online", online)
			unsure = time.Time{}
		}
		switch {
		case err == nil && online:
			offline = time.Time{}
		case offline.IsZero():
			offline = time.Now()
		}
		wait := h.o.Grace
		if unsure.IsZero() && h.o.Known(ctx) == 0 {
			wait = 0 // nothing to wait for
		}
		if !offline.IsZero() && time.Since(offline) >= wait {
			if !unsure.IsZero() {
				h.log.Warn("still cannot tell whether the box is online: taken for offline", "since", unsure)
			}
			if h.serve(ctx) {
				offline = time.Time{}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// serve opens the access point and keeps it open until a network is
// joined through it (true), the networks kept come back (true), the box
// is online by other means, a cable (true), or ctx is done (false).
func (h *Hotspot) serve(ctx context.Context) bool {
	seen, err := h.o.Link.Scan(ctx)
	if err != nil {
		h.log.Warn("no Wi-Fi scan before opening the access point", "err", err)
	}
	if !h.open(ctx, seen) {
		return false
	}
	h.say(ctx, h.o.Lang.T("I have no network. Join my own Wi-Fi, %s, with a phone: press my button twice to hear its password.", spelled(h.o.Own.SSID)))
	retry := time.NewTimer(h.o.Retry)
	defer retry.Stop()
	check := time.NewTicker(h.o.Check)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			h.close(context.WithoutCancel(ctx))
			return false
		case r := <-h.join:
			if h.tryJoin(ctx, r) {
				return true
			}
			retry.Reset(h.o.Retry)
		case <-retry.C:
			if h.o.Known(ctx) > 0 && h.tryKnown(ctx) {
				return true
			}
			retry.Reset(h.o.Retry)
		case <-check.C:
			// A box that cannot tell keeps its access point open.
			if online, err := h.o.Link.Online(ctx); err == nil && online && h.closeUnlessJoining(ctx) {
				h.log.Info("the box is online by other means: its own Wi-Fi is closed")
				return true
			}
		}
	}
}

func (h *Hotspot) open(ctx context.Context, seen []Seen) bool {
	return h.openAnd(ctx, seen, func(*HotspotState) {})
}

// openAnd opens the access point and, once it is open, changes the state
// with and in the same step.
func (h *Hotspot) openAnd(ctx context.Context, seen []Seen, and func(*HotspotState)) bool {
	if err := h.o.AP.OpenAP(ctx, h.o.Own); err != nil {
		h.log.Error("the box's own Wi-Fi did not open", "ssid", h.o.Own.SSID, "err", err)
		return false
	}
	h.log.Info("the box's own Wi-Fi is open", "ssid", h.o.Own.SSID)
	h.set(func(st *HotspotState) {
		st.Open = true
		if seen != nil {
			st.Seen = seen
		}
		and(st)
	})
	return true
}

// closeUnlessJoining closes the access point unless a phone on it has
// asked for a network to be joined (Join), and reports whether it closed
// it. From the moment it decides, Join says the access point is not open.
func (h *Hotspot) closeUnlessJoining(ctx context.Context) bool {
	h.mu.Lock()
	joining := h.st.Joining != ""
	if !joining {
		h.st.Open = false
	}
	h.mu.Unlock()
	if joining {
		return false
	}
	h.close(ctx)
	return true
}

func (h *Hotspot) close(ctx context.Context) {
	if err := h.o.AP.CloseAP(ctx); err != nil {
		h.log.Warn("the box's own Wi-Fi did not close", "err", err)
	}
	h.set(func(st *HotspotState) { st.Open = false })
}

// tryJoin closes the access point and joins r's network; when that fails
// it opens the access point again and says why.
func (h *Hotspot) tryJoin(ctx context.Context, r joinRequest) bool {
	h.close(ctx)
	addr, err := h.o.Link.Join(ctx, r.ssid, r.psk)
	if err == nil {
		h.log.Info("joined a Wi-Fi network from the captive page", "ssid", r.ssid, "address", addr)
		h.set(func(st *HotspotState) { st.Joining, st.Joined, st.Address, st.Failed = "", r.ssid, addr, "" })
		if h.o.Joined != nil {
			h.say(ctx, h.o.Joined(r.ssid, addr))
		}
		return true
	}
	h.log.Warn("could not join the Wi-Fi network", "ssid", r.ssid, "err", err)
	why := errorWords(err)
	failed := func(st *HotspotState) {
		st.Joining, st.Failed = "", fmt.Sprintf("Could not join “%s”: %s.", r.ssid, why)
	}
	// Still joining until the access point is open again: the page has
	// somewhere to say why (in between it would have none, and send a
	// phone that looked away to the network page).
	if ctx.Err() == nil && h.openAnd(ctx, nil, failed) {
		h.say(ctx, h.o.Lang.T("I could not join %s. My own Wi-Fi is open again: the page there says why.", r.ssid))
		return false
	}
	h.set(failed)
	return false
}

// tryKnown closes the access point for a while to let the radio find the
// networks kept; it opens it again when none is joined.
func (h *Hotspot) tryKnown(ctx context.Context) bool {
	h.close(ctx)
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(h.o.Check)
	defer tick.Stop()
	for {
		if ok, _ := h.o.Link.Online(ctx); ok {
			h.log.Info("a Wi-Fi network kept is back")
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			seen, _ := h.o.Link.Scan(ctx)
			h.open(ctx, seen)
			return false
		case <-tick.C:
		}
	}
}

// errorWords is a join's error in words for the page.
func errorWords(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Msg
	}
	msg := err.Error()
	for strings.HasPrefix(msg, "network: ") {
		msg = strings.TrimPrefix(msg, "network: ")
	}
	return msg
}

// Spoken is how the box says the access point's name or passphrase: its
// digits one by one, so that each can be typed as it is heard ("Hark-4F21"
// is "Hark 4 F21").
func Spoken(s string) string {
	var out []string
	word := ""
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			if word != "" {
				out, word = append(out, word), ""
			}
			out = append(out, string(r))
		case r == '-' || r == ' ':
			if word != "" { // a phone's list shows the dash; the ear needs only the words
				out, word = append(out, word), ""
			}
		default:
			word += string(r)
		}
	}
	if word != "" {
		out = append(out, word)
	}
	return strings.Join(out, " ")
}

func spelled(s string) string { return Spoken(s) }
