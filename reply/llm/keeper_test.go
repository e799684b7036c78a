package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
)

var slow = ollamatest.Model{Name: "llama3.2:1b", Family: "llama", ParameterSize: "1.2B", Capabilities: []string{"completion", "tools"},
	LoadDelay: 400 * time.Millisecond}

// waitPhase waits until k's phase is p, or fails after a few seconds.
func waitPhase(t *testing.T, k *Keeper, p Phase) Readiness {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := k.Changed()
		if st := k.State(); st.Phase == p {
			return st
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("phase %v, want %v", k.State().Phase, p)
		}
	}
}

// TestKeeperLoadsACold model: Ensure finds the model not loaded and loads
// it in the background; Wait returns once it is; the state says how long
// the load took.
func TestKeeperLoadsAColdModel(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	c := newClient(t, srv, slow.Name)
	k := NewKeeper(KeeperOptions{Server: c})
	defer k.Close()
	if st := k.Ensure(t.Context(), nil); st.Phase != Loading {
		t.Fatalf("phase %v after Ensure on a cold model, want loading", st.Phase)
	}
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := k.State()
	if st.Phase != Ready || st.Load < 300*time.Millisecond || st.Warmed.IsZero() {
		t.Errorf("after the load: %+v, want ready with the load's time", st)
	}
	if got := k.Probe(t.Context()); got.Phase != Ready {
		t.Errorf("Probe of a loaded model: %v, want ready", got.Phase)
	}
}

// listedSoon waits until the server lists its model, or fails after a
// few seconds.
func listedSoon(t *testing.T, c *Client) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if l, _ := c.Running(t.Context()); len(l) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never listed the model")
		}
	}
}

// TestKeeperWaitsForALoadBegunElsewhere: another client (a second speaker,
// a `hark ask`) began loading the model, and the server lists it from the
// start of the load. Ensure finds it loading, not ready; Wait waits for
// that very load, which the Keeper never begins again nor cuts short.
func TestKeeperWaitsForALoadBegunElsewhere(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	other := newClient(t, srv, slow.Name)
	loaded := make(chan error, 1)
	go func() { loaded <- other.Load(t.Context()) }()
	defer func() { <-loaded }()
	listedSoon(t, other)
	k := NewKeeper(KeeperOptions{Server: newClient(t, srv, slow.Name)})
	defer k.Close()
	if st := k.Ensure(t.Context(), nil); st.Phase != Loading {
		t.Fatalf("phase %v while another client loads the model, want loading", st.Phase)
	}
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := k.State(); st.Phase != Ready || st.Load < 100*time.Millisecond {
		t.Errorf("after the load: %+v, want ready, having waited for the load", st)
	}
	if loads, aborted := srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d: want the other client's one load", loads, aborted)
	}
}

// TestKeeperFindsAModelAnsweringItsFirstQuestionReady: until the first
// request after its load ends, the server lists a loaded model as it lists
// a loading one; the Keeper's own request, answered at once, tells it is
// in memory, and Ensure says ready.
func TestKeeperFindsAModelAnsweringItsFirstQuestionReady(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	gate, answered := make(chan struct{}), make(chan error, 1)
	srv.Enqueue(ollamatest.Reply{Content: "Once upon a time", Gate: gate, GateAfter: 1})
	other := newClient(t, srv, slow.Name)
	go func() {
		_, err := other.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "a story"}}}, func(Chunk) error { return nil })
		answered <- err
	}()
	defer func() { close(gate); <-answered }()
	for !srv.Loaded(slow.Name) {
		time.Sleep(5 * time.Millisecond)
	}
	k := NewKeeper(KeeperOptions{Server: newClient(t, srv, slow.Name)})
	defer k.Close()
	if st := k.Ensure(t.Context(), nil); st.Phase != Ready {
		t.Errorf("phase %v for a model in memory answering its first question, want ready", st.Phase)
	}
}

// TestSettling: a listing whose expiry moved is a model still loading.
func TestSettling(t *testing.T) {
	at := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		first, again time.Time
		want         bool
	}{
		{at, at, false},
		{at, at.Add(21 * time.Millisecond), true},
		{at, at.In(time.FixedZone("CET", 3600)), false},
	} {
		if got := Settling(Loaded{Expires: c.first}, Loaded{Expires: c.again}); got != c.want {
			t.Errorf("expiry %v then %v: settling %v, want %v", c.first, c.again, got, c.want)
		}
	}
}

// TestLoadAsksForTheContextWindow: a load asks for the window the chats
// ask for, or Ollama would load the model again for the next chat.
func TestLoadAsksForTheContextWindow(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	if err := newClient(t, srv, slow.Name).Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := srv.Chats()[0].Options["num_ctx"]; got != float64(4096) {
		t.Errorf("num_ctx %v, want the client's 4096", got)
	}
}

// TestKeeperNeverAbandonsALoad: whoever waits may give up; the load goes
// on to the end, and the server does not abort it.
func TestKeeperNeverAbandonsALoad(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	k := NewKeeper(KeeperOptions{Server: newClient(t, srv, slow.Name)})
	defer k.Close()
	k.Ensure(t.Context(), nil)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := k.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with a short context: %v, want its deadline", err)
	}
	waitPhase(t, k, Ready)
	if loads, aborted := srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d: the load must finish however long its waiters wait", loads, aborted)
	}
}

// TestKeeperWarmsWithTheGivenCall: the load is the warm-up given, whose
// answer tells the load from the prompt.
func TestKeeperWarmsWithTheGivenCall(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "Hi", FirstTokenDelay: 100 * time.Millisecond}
	})
	c := newClient(t, srv, slow.Name)
	k := NewKeeper(KeeperOptions{Server: c})
	defer k.Close()
	warm := func(ctx context.Context) (Response, error) {
		return c.Chat(ctx, Request{MaxTokens: 1, Messages: []Message{{Role: RoleSystem, Content: "You are Hark."}, {Role: RoleUser, Content: "hello"}}}, nil)
	}
	k.Load(warm)
	k.Load(warm) // one load at a time
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := k.State()
	if st.Load < 300*time.Millisecond || st.Prompt < 90*time.Millisecond {
		t.Errorf("load %v, prompt %v: want the load's 400 ms and the prompt's 100 ms apart", st.Load, st.Prompt)
	}
	if n := len(srv.Chats()); n != 1 {
		t.Errorf("%d chats, want the one warm-up", n)
	}
}

// TestKeeperFailedLoad: a load that fails is the waiters' error, and the
// phase says the model is not known loaded.
func TestKeeperFailedLoad(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	// The server's answer waits at a gate, so that the load is still under
	// way when Wait looks for it (a load already over is none to wait
	// for): under emulation the refusal came back before Wait began.
	gate := make(chan struct{})
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-gate
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	c, err := New(Options{Host: &url.URL{Scheme: "http", Host: strings.TrimPrefix(front.URL, "http://")}, Model: "nope:1b"})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeeper(KeeperOptions{Server: c})
	defer k.Close()
	k.Load(nil)
	time.AfterFunc(500*time.Millisecond, func() { close(gate) })
	if err := k.Wait(t.Context()); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("Wait: %v, want the server's model not found", err)
	}
	if st := k.State(); st.Phase != Unknown || st.Err == nil {
		t.Errorf("after a failed load: %+v", st)
	}
}

// TestKeeperSilentServer: a server that does not answer /api/ps leaves the
// phase unknown, and nothing is loaded.
func TestKeeperSilentServer(t *testing.T) {
	srv := newSilent(t)
	c, err := New(Options{Host: &url.URL{Scheme: "http", Host: srv}, Model: "llama3.2:1b"})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeeper(KeeperOptions{Server: c})
	defer k.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	st := k.Ensure(ctx, nil)
	if st.Phase != Unknown || st.Err == nil || !strings.Contains(st.Err.Error(), "loaded") {
		t.Errorf("Ensure against a silent server: %+v, want unknown with the reason", st)
	}
	if k.Wait(t.Context()) != nil {
		t.Error("a load began against a silent server")
	}
}

// TestKeeperReloadsAnEvictedModel: Keep warms the model up at once, and
// loads it again after another client unloads it; without reload it only
// notes that it is gone.
func TestKeeperReloadsAnEvictedModel(t *testing.T) {
	for _, reload := range []bool{true, false} {
		srv := ollamatest.New(slow)
		defer srv.Close()
		k := NewKeeper(KeeperOptions{Server: newClient(t, srv, slow.Name)})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); k.Keep(ctx, 30*time.Millisecond, nil, reload) }()
		waitPhase(t, k, Ready)
		srv.Unload(slow.Name)
		if reload {
			waitPhase(t, k, Loading)
			waitPhase(t, k, Ready)
		} else {
			waitPhase(t, k, Cold)
		}
		cancel()
		<-done
		k.Close()
		if loads, _ := srv.Loads(); reload && loads != 2 || !reload && loads != 1 {
			t.Errorf("reload %v: %d loads", reload, loads)
		}
	}
}

// TestKeeperRenewsBeforeExpiry: a model the server is about to unload is
// asked for again, without being reloaded.
func TestKeeperRenewsBeforeExpiry(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c, err := New(Options{Host: u, Model: slow.Name, KeepAlive: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	k := NewKeeper(KeeperOptions{Server: c})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); k.Keep(ctx, 20*time.Millisecond, nil, true) }()
	waitPhase(t, k, Ready)
	deadline := time.Now().Add(5 * time.Second)
	for renewals(srv) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	k.Close()
	if n := renewals(srv); n < 2 {
		t.Errorf("%d load requests: a model that expires within a minute must be renewed", n)
	}
	if loads, _ := srv.Loads(); loads != 1 {
		t.Errorf("%d loads: renewing must not reload", loads)
	}
}

// renewals counts the chats without messages: the first load and each
// renewal.
func renewals(srv *ollamatest.Server) int {
	n := 0
	for _, c := range srv.Chats() {
		if len(c.Messages) == 0 {
			n++
		}
	}
	return n
}

// newSilent is a server that accepts connections and never answers; it
// returns its address.
func newSilent(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestHoldsNotAModelBeingUnloaded: right after another client unloads the
// model, Ollama still lists it, expiring at the moment it was told to go;
// that model is not held, or a question then would find it "ready" and
// pay for the load inside its reply budget.
func TestHoldsNotAModelBeingUnloaded(t *testing.T) {
	now := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		expires time.Time
		held    bool
	}{
		{time.Time{}, true},                      // no expiry said
		{now.Add(30 * time.Minute), true},        // kept alive
		{now.Add(-10 * time.Millisecond), false}, // told to go
		{now, false},
	} {
		_, held := Holds([]Loaded{{Name: "llama3.2:1b", Expires: c.expires}}, "llama3.2:1b", now)
		if held != c.held {
			t.Errorf("expires %v: held %v, want %v", c.expires, held, c.held)
		}
	}
	if _, held := Holds([]Loaded{{Name: "hark-bench-1b:latest"}}, "hark-bench-1b", now); !held {
		t.Error("an untagged name must match its :latest listing")
	}
}

// countingResident counts the listings a Keeper asks for.
type countingResident struct {
	Resident
	mu       sync.Mutex
	listings int
}

func (c *countingResident) Running(ctx context.Context) ([]Loaded, error) {
	c.mu.Lock()
	c.listings++
	c.mu.Unlock()
	return c.Resident.Running(ctx)
}

func (c *countingResident) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listings
}

// TestKeeperListsOnceWhenNothingMoved: telling a load from a model in
// memory takes two listings settleGap apart, on the path of every reply;
// with the expiry noted after the reply before (Note), or seen standing
// still by the probe before, one listing is enough.
func TestKeeperListsOnceWhenNothingMoved(t *testing.T) {
	srv := ollamatest.New(slow)
	defer srv.Close()
	srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Hello."} })
	cl := newClient(t, srv, slow.Name)
	res := &countingResident{Resident: cl}
	k := NewKeeper(KeeperOptions{Server: res})
	defer k.Close()
	if err := cl.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := k.Ensure(t.Context(), nil); st.Phase != Ready {
		t.Fatalf("phase %v, want ready", st.Phase)
	}
	before := res.count()
	if st := k.Ensure(t.Context(), nil); st.Phase != Ready || res.count()-before != 1 {
		t.Errorf("a second check with nothing between: %v, %d listings; want ready in one", st.Phase, res.count()-before)
	}
	// A reply of the caller's own moves the expiry; noted after it, the
	// next check takes one listing still.
	if _, err := cl.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hello"}}}, func(Chunk) error { return nil }); err != nil {
		t.Fatal(err)
	}
	k.Note(t.Context())
	before = res.count()
	if st := k.Ensure(t.Context(), nil); st.Phase != Ready || res.count()-before != 1 {
		t.Errorf("a check after a reply that was noted: %v, %d listings; want ready in one", st.Phase, res.count()-before)
	}
	// Not noted: two listings, as before.
	if _, err := cl.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hello"}}}, func(Chunk) error { return nil }); err != nil {
		t.Fatal(err)
	}
	before = res.count()
	if st := k.Ensure(t.Context(), nil); st.Phase != Ready || res.count()-before != 2 {
		t.Errorf("a check after a reply not noted: %v, %d listings; want ready in two", st.Phase, res.count()-before)
	}
}
