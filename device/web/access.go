package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Store keeps the page's password hash; *storage.Settings is one.
type Store interface {
	Get(ctx context.Context, key string, v any) (bool, error)
	Set(ctx context.Context, key string, v any) error
}

const (
	passwordKey   = "web/password"
	codeKey       = "web/code" // the setup code while no password is set
	sessionCookie = "hark_session"
	minPassword   = 8
	// failures within failWindow lock a source address out for lockFor.
	maxFailures = 5
	failWindow  = 15 * time.Minute
	lockFor     = 15 * time.Minute
	// maxSources bounds the addresses whose guesses are remembered: past
	// it, the oldest is forgotten (a flood of addresses costs memory no
	// more than this).
	maxSources = 4096
	// Overall, whatever the address, guesses are limited to a burst of
	// globalBurst and then one per globalEvery.
	globalBurst = 20
	globalEvery = 3 * time.Second
	// maxPassword is bcrypt's limit, in bytes.
	maxPassword = 72
)

// credential is what the store keeps: the bcrypt hash of the password.
type credential struct {
	Hash string `json:"hash"`
}

// pendingCode is the setup code the store keeps while no password is set,
// so that a code printed by `hark web reset` while the daemon is stopped
// is the one its page asks for.
type pendingCode struct {
	Code string `json:"code"`
}

// access is who may use the page: the one-time setup code until a
// password is chosen, then the password's sessions.
type access struct {
	store Store
	now   func() time.Time
	idle  time.Duration
	cost  int // bcrypt's

	mu       sync.Mutex
	code     string // the setup code; "" once a password is set
	sessions map[string]*session
	guesses  guesses
}

type session struct {
	csrf  string
	last  time.Time
	flash string // what the last form did, said once on the next page
}

func (a *access) setFlash(t, msg string) {
	a.mu.Lock()
	if s, ok := a.sessions[t]; ok {
		s.flash = msg
	}
	a.mu.Unlock()
}

func (a *access) takeFlash(t string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[t]
	if !ok {
		return ""
	}
	msg := s.flash
	s.flash = ""
	return msg
}

func newAccess(ctx context.Context, store Store, now func() time.Time, idle time.Duration) (*access, error) {
	a := &access{store: store, now: now, idle: idle, cost: bcrypt.DefaultCost, sessions: map[string]*session{},
		guesses: newGuesses(now)}
	var c credential
	ok, err := store.Get(ctx, passwordKey, &c)
	if err != nil {
		return nil, fmt.Errorf("web: read the password: %w", err)
	}
	if !ok || c.Hash == "" {
		if a.code, err = keptCode(ctx, store); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// keptCode is the setup code the store keeps, made and kept when there is
// none. A store that cannot keep it (full, read-only) still gets a code,
// for this run.
func keptCode(ctx context.Context, store Store) (string, error) {
	var pc pendingCode
	if _, err := store.Get(ctx, codeKey, &pc); err != nil {
		return "", fmt.Errorf("web: read the setup code: %w", err)
	}
	if len(pc.Code) == 8 {
		return pc.Code, nil
	}
	pc.Code = newCode()
	store.Set(ctx, codeKey, pc) // a store that refuses costs only the next start's code
	return pc.Code, nil
}

// Reset forgets the page's password and keeps a new setup code, which it
// returns: the page's next visit asks for it and a new password. Memory,
// timers and everything else the store holds are kept. It works on the
// store alone, for `hark web reset` while no daemon runs; a running page
// is reset by Server.Reset.
func Reset(ctx context.Context, store Store) (string, error) {
	code := newCode()
	if err := store.Set(ctx, codeKey, pendingCode{Code: code}); err != nil {
		return "", fmt.Errorf("web: keep the new setup code: %w", err)
	}
	if err := store.Set(ctx, passwordKey, credential{}); err != nil {
		return "", fmt.Errorf("web: forget the password: %w", err)
	}
	return code, nil
}

// Code is the setup code the page's next first visit asks for, from the
// store alone (made and kept when there is none), and whether one is
// pending: none is once a password is set. `hark web code` uses it while
// no daemon runs.
func Code(ctx context.Context, store Store) (string, bool, error) {
	var c credential
	ok, err := store.Get(ctx, passwordKey, &c)
	if err != nil {
		return "", false, fmt.Errorf("web: read the password: %w", err)
	}
	if ok && c.Hash != "" {
		return "", false, nil
	}
	code, err := keptCode(ctx, store)
	return code, err == nil, err
}

// reset is Reset on the running page: every browser is logged out, and
// the page asks for the new code.
func (a *access) reset(ctx context.Context) (string, error) {
	code, err := Reset(ctx, a.keep())
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	a.code = code
	clear(a.sessions)
	a.mu.Unlock()
	return code, nil
}

// keep is the store the password is kept in.
func (a *access) keep() Store {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.store
}

// newCode is eight random digits.
func newCode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(100_000_000))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return fmt.Sprintf("%08d", n)
}

func token() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// setupCode is the one-time code while no password is set.
func (a *access) setupCode() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.code, a.code != ""
}

var (
	errLocked    = errors.New("too many wrong tries from this address: wait a quarter of an hour and try again")
	errBusy      = errors.New("too many tries on this page just now: wait a minute and try again")
	errWrong     = errors.New("that is not the right password")
	errWrongCode = errors.New("that is not the code the speaker said; double-press its button to hear it again")
	errSetUp     = errors.New("the page is set up already: log in with its password")
	errPassword  = errors.New("the new password does not do")
)

// setup takes the setup code and the first password; it returns a new
// session's token.
func (a *access) setup(ctx context.Context, src, code, password string) (string, error) {
	a.mu.Lock()
	want := a.code
	a.mu.Unlock()
	if want == "" {
		return "", errSetUp
	}
	g, err := a.guesses.try(src)
	if err != nil {
		return "", err
	}
	if subtle.ConstantTimeCompare([]byte(code), []byte(want)) != 1 {
		return "", errWrongCode // the guess stays counted
	}
	g.right()
	if err := checkPassword(password); err != nil {
		return "", err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), a.cost)
	if err != nil {
		return "", fmt.Errorf("web: hash the password: %w", err)
	}
	if err := a.keep().Set(ctx, passwordKey, credential{Hash: string(hash)}); err != nil {
		return "", fmt.Errorf("web: keep the password: %w", err)
	}
	a.keep().Set(ctx, codeKey, pendingCode{}) // used: the password stands whatever this says
	a.mu.Lock()
	a.code = ""
	a.mu.Unlock()
	return a.open(), nil
}

func checkPassword(p string) error {
	if len([]rune(p)) < minPassword {
		return passwordProblem(fmt.Sprintf("the password needs at least %d characters", minPassword))
	}
	if len(p) > maxPassword {
		return passwordProblem(fmt.Sprintf("the password can be %d bytes long at most (%d letters without accents)", maxPassword, maxPassword))
	}
	return nil
}

// passwordProblem says what is wrong with a new password; it is
// errPassword.
type passwordProblem string

func (p passwordProblem) Error() string        { return string(p) }
func (p passwordProblem) Is(target error) bool { return target == errPassword }

// login checks the password and returns a new session's token.
// Every guess is counted before it is checked, so guesses sent together
// cannot all be checked before the lock-out.
func (a *access) login(ctx context.Context, src, password string) (string, error) {
	g, err := a.guesses.try(src)
	if err != nil {
		return "", err
	}
	var c credential
	ok, err := a.keep().Get(ctx, passwordKey, &c)
	if err != nil {
		g.right() // not the guesser's fault
		return "", fmt.Errorf("web: read the password: %w", err)
	}
	if !ok || len(password) > maxPassword || bcrypt.CompareHashAndPassword([]byte(c.Hash), []byte(password)) != nil {
		return "", errWrong
	}
	g.right()
	return a.open(), nil
}

func (a *access) open() string {
	t := token()
	a.mu.Lock()
	a.sessions[t] = &session{csrf: token(), last: a.now()}
	a.mu.Unlock()
	return t
}

// session returns the live session of a token, touching it; expired
// sessions are dropped.
func (a *access) session(t string) (*session, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[t]
	if !ok {
		return nil, false
	}
	if a.now().Sub(s.last) > a.idle {
		delete(a.sessions, t)
		return nil, false
	}
	s.last = a.now()
	return s, true
}

// alive reports whether a token's session is live, without counting this
// as a use: an open page's event stream does not keep a session alive.
func (a *access) alive(t string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[t]
	return ok && a.now().Sub(s.last) <= a.idle
}

func (a *access) close(t string) {
	a.mu.Lock()
	delete(a.sessions, t)
	a.mu.Unlock()
}

// closeAll logs every browser out.
func (a *access) closeAll() {
	a.mu.Lock()
	clear(a.sessions)
	a.mu.Unlock()
}

// changePassword replaces the password after checking the old one, and
// logs every other session out.
func (a *access) changePassword(ctx context.Context, src, keep, old, password string) error {
	if _, err := a.login(ctx, src, old); err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), a.cost)
	if err != nil {
		return fmt.Errorf("web: hash the password: %w", err)
	}
	if err := a.keep().Set(ctx, passwordKey, credential{Hash: string(hash)}); err != nil {
		return fmt.Errorf("web: keep the password: %w", err)
	}
	a.mu.Lock()
	for t := range a.sessions {
		if t != keep {
			delete(a.sessions, t)
		}
	}
	a.mu.Unlock()
	return nil
}

// local reports whether an address is one the page serves by default:
// loopback, private (RFC 1918, ULA) or link-local.
func local(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast())
}

// source is the address a request's guesses are counted by: the host's
// IPv4 address, or its IPv6 /64 (one host has the whole prefix).
func source(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

func subtleEqual(a, b string) int { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) }
