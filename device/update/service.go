package update

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// AgentOptions describe the box an Agent updates.
type AgentOptions struct {
	// Manifest is the update server's manifest URL; "" for none.
	Manifest string
	// Dir keeps the downloads and the State.
	Dir string
	// Floor is the free space a download must leave on Dir's filesystem.
	Floor int64
	RAUC  Installer
	// Running is the running firmware's version; Device the box's
	// identity ("" when it has none yet). Both name the box to the update
	// server in every request's User-Agent.
	Running, Device string
	// Idle and Reboot are the Agent's (see Agent).
	Idle, Reboot func(ctx context.Context) error
	Log          *slog.Logger
}

// NewAgent is the update agent of a box, as `hark update` and the daemon
// both run it: a download client with no overall timeout (a bundle is
// hundreds of megabytes; a server that stops answering is caught by the
// transport's header timeout, and one that stops sending midway by the
// Downloader's idle timeout, which resumes from where it stopped) that
// names Hark, its version and the box.
func NewAgent(o AgentOptions) *Agent {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       30 * time.Second,
	}
	agent := "hark/" + o.Running
	if o.Device != "" {
		agent += " (device " + o.Device + ")"
	}
	return &Agent{
		Manifest: o.Manifest,
		Download: Downloader{HTTP: &http.Client{Transport: userAgent{tr, agent}}, Dir: o.Dir, Floor: o.Floor},
		RAUC:     o.RAUC,
		Running:  o.Running,
		Idle:     o.Idle,
		Reboot:   o.Reboot,
		Explain:  ExplainWithCLI(""),
		Log:      o.Log,
	}
}

// userAgent names Hark, its version and the box in every request.
type userAgent struct {
	rt    http.RoundTripper
	agent string
}

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.agent)
	return u.rt.RoundTrip(r)
}

// Job is an install under way, or the last one this process ran.
type Job struct {
	Running bool
	Phase   string // downloading, installing, installed, failed
	Percent int
	Version string
	Err     string
}

// Service runs an Agent's checks and installs for a box and keeps what they
// did: the job under way, what the server last offered, and a Record of
// every install in State. `hark update` and the daemon's updates resource
// both install through it. Its methods are safe for concurrent use.
type Service struct {
	agent *Agent
	state State

	mu      sync.Mutex
	job     Job
	offered Check
	checked bool
}

// NewService keeps a's checks and installs in a's download directory.
func NewService(a *Agent) *Service {
	return &Service{agent: a, state: State{Dir: a.Download.Dir}}
}

// Agent is the service's agent.
func (s *Service) Agent() *Agent { return s.agent }

// State is where the service keeps its records.
func (s *Service) State() State { return s.state }

// Check asks the update server what it offers, and records when it asked.
// An offered version that failed its boot check on this box comes with
// that check in Failed (see Check.Skip).
func (s *Service) Check(ctx context.Context) (Check, error) {
	c, err := s.agent.Check(ctx)
	if err != nil {
		return c, err
	}
	if f, ok := s.state.LastFailedBoot(); ok && sameVersion(f.Version, c.Available.Version) {
		c.Failed = &f
	}
	if err := s.state.Checked(time.Now()); err != nil {
		s.agent.log().Warn("could not record the check", "err", err)
	}
	s.mu.Lock()
	s.offered, s.checked = c, true
	s.mu.Unlock()
	return c, nil
}

// Offered is what the last Check found; false before one.
func (s *Service) Offered() (Check, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offered, s.checked
}

// Job is the install under way, or the last one.
func (s *Service) Job() Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.job
}

// Install installs src (see Agent.Install) to its end, telling progress of
// each step, keeping the job for Job and the result in State. It returns
// ErrBusy while another install of this service runs.
func (s *Service) Install(ctx context.Context, src string, progress func(Progress)) (Result, error) {
	if !s.begin() {
		return Result{}, ErrBusy
	}
	return s.install(ctx, src, progress, false)
}

// Start begins installing src in the background and returns at once;
// done, when set, gets the result. ErrBusy while another install runs.
func (s *Service) Start(src string, progress func(Progress), done func(Result, error)) error {
	if !s.begin() {
		return ErrBusy
	}
	go func() {
		// The install outlives the request that asked for it.
		res, err := s.install(context.Background(), src, progress, false)
		if done != nil {
			done(res, err)
		}
	}()
	return nil
}

// Upload keeps a bundle that write puts into a new file in Download.Dir
// (named name) and begins installing it in the background, as Start does;
// a write that fails is its error, and nothing is installed. Download.Dir
// is locked from before the file is made until the install ends, so that
// another upload, or an install by this process or another, is refused
// with ErrBusy naming the directory instead of writing the same file or
// removing it. Written into a slot or refused, the bundle is removed: the
// data partition has no room to keep it beside the next.
func (s *Service) Upload(name string, write func(*os.File) error, progress func(Progress), done func(Result, error)) error {
	dir := s.agent.Download.Dir
	if dir == "" || filepath.Base(name) != name {
		return fmt.Errorf("update: upload %q into %q: no such file in no directory", name, dir)
	}
	unlock, err := s.agent.Download.lock()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	if err := s.keep(path, write); err != nil {
		unlock()
		return err
	}
	if !s.begin() {
		os.Remove(path)
		unlock()
		return ErrBusy
	}
	go func() {
		defer unlock()
		// The install outlives the request that asked for it.
		res, err := s.install(context.Background(), path, progress, true)
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			s.agent.log().Warn("could not remove the uploaded bundle", "err", rerr)
		}
		if done != nil {
			done(res, err)
		}
	}()
	return nil
}

// keep has write put a file at path, under another name until it is
// whole.
func (s *Service) keep(path string, write func(*os.File) error) error {
	f, err := os.Create(path + partSuffix)
	if err != nil {
		return fmt.Errorf("update: upload: %w", err)
	}
	defer os.Remove(path + partSuffix)
	err = write(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("update: upload: %w", cerr)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(path+partSuffix, path); err != nil {
		return fmt.Errorf("update: upload: %w", err)
	}
	return nil
}

func (s *Service) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.job.Running {
		return false
	}
	s.job = Job{Running: true, Phase: "downloading"}
	return true
}

// install installs src, keeping the job; held tells that the caller holds
// Download.Dir's lock (see Agent.install).
func (s *Service) install(ctx context.Context, src string, progress func(Progress), held bool) (Result, error) {
	res, err := s.agent.install(ctx, src, func(p Progress) {
		s.mu.Lock()
		s.job.Percent = p.Percent
		s.job.Phase = map[string]string{"download": "downloading", "install": "installing"}[p.Stage]
		s.mu.Unlock()
		if progress != nil {
			progress(p)
		}
	}, held)
	source := src
	if source == "" {
		source = s.agent.Manifest
	}
	rec := Record{Time: time.Now().UTC(), Source: Shown(source), Version: res.Version} // read on the page
	s.mu.Lock()
	s.job.Running = false
	if err != nil {
		s.job.Phase, s.job.Err, rec.Error = "failed", err.Error(), err.Error()
	} else {
		s.job.Phase, s.job.Percent, s.job.Version = "installed", 100, res.Version
	}
	s.mu.Unlock()
	if kerr := s.state.Keep(rec); kerr != nil {
		s.agent.log().Warn("could not record the install", "err", kerr)
	}
	if err == nil {
		if cerr := s.state.clearSkip(); cerr != nil {
			s.agent.log().Warn("could not forget the last skip", "err", cerr)
		}
	}
	return res, err
}

// LastSentence is the last recorded install as a sentence for people, in
// loc: "2 Jan 15:04: installed 1.3.0 from URL"; "" when none is recorded.
func (s *Service) LastSentence(loc *time.Location) string {
	last, ok := s.state.Last()
	if !ok {
		return ""
	}
	at := last.Time.In(loc).Format("2 Jan 15:04")
	if last.Error != "" {
		return fmt.Sprintf("%s: failed: %s", at, last.Error)
	}
	return fmt.Sprintf("%s: installed %s from %s", at, last.Version, last.Source)
}

// SystemReboot asks systemd to reboot: the Reboot of a board.
func SystemReboot(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "systemctl", "reboot").CombinedOutput()
	if err != nil {
		return fmt.Errorf("update: systemctl reboot: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
