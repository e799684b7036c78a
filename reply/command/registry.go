package command

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/storage"
)

// Secrets is where commands' credentials are kept; *storage.Secrets is one.
type Secrets interface {
	// Get returns the secret's value, or "" when it is not set.
	Get(ctx context.Context, key string) (string, error)
}

// Options configure a Registry.
type Options struct {
	Secrets Secrets
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Synced reports whether Now is right (the box's clock is set); nil
	// means always. Calls made while it is not carry Call.ClockUnset.
	Synced func() bool
	// Location is the time zone of the user; default time.Local.
	Location *time.Location
	// RefineWindow is how long after a call a refinement of it is taken;
	// default 30 s.
	RefineWindow time.Duration
	// Lists fills the templates' run-time lists (the house's names, areas
	// and floors); nil for none.
	Lists Lister
	// Area is the room the speaker is in: "turn on the lights" there
	// means that area's lights, when the house has an area of that name.
	Area string
	Log  *slog.Logger
}

// Registry holds the commands and runs calls to them. It is safe for
// concurrent use.
type Registry struct {
	o   Options
	log *slog.Logger

	// cat guards the catalogue: commands come and go while turns run
	// (an MCP server's tools join when it connects and leave when it dies).
	cat    sync.RWMutex
	cmds   []*Command
	byName map[string]*Command

	mu sync.Mutex
	// last is each client's last call, which a refinement changes.
	last map[string]*lastCall

	// zone is the user's time zone: Options.Location until SetLocation.
	zone atomic.Pointer[time.Location]
}

type lastCall struct {
	cmd  *Command
	args Args
	data map[string]any
	at   time.Time
	// lang is the language of the turn that made the call: the
	// conversation's, for a follow-up whose words do not tell.
	lang string
}

// NewRegistry returns an empty registry.
func NewRegistry(o Options) *Registry {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.RefineWindow == 0 {
		o.RefineWindow = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	r := &Registry{o: o, log: o.Log.With("pkg", "command"), byName: map[string]*Command{}, last: map[string]*lastCall{}}
	r.zone.Store(o.Location)
	return r
}

// SetLocation changes the user's time zone for the calls from now on (the
// household set another on the web page); nil changes nothing.
func (r *Registry) SetLocation(loc *time.Location) {
	if loc != nil {
		r.zone.Store(loc)
	}
}

// Register adds commands, all or none: a malformed command (bad name,
// unknown parameter type, missing Run) or a repeated name is an error and
// registers nothing.
func (r *Registry) Register(cmds ...*Command) error { return r.Replace(nil, cmds...) }

// Unregister removes the named commands; names not registered are ignored.
// A call already running finishes.
func (r *Registry) Unregister(names ...string) { r.Replace(names) } // removing alone cannot fail

// Replace removes the named commands and adds cmds in one step, so no turn
// sees the catalogue between the two; on an error nothing changes.
func (r *Registry) Replace(remove []string, cmds ...*Command) error {
	r.cat.Lock()
	defer r.cat.Unlock()
	seen := map[string]bool{}
	for _, c := range cmds {
		if err := c.check(); err != nil {
			return err
		}
		if _, dup := r.byName[c.Name]; dup && !slices.Contains(remove, c.Name) || seen[c.Name] {
			return fmt.Errorf("command: %s registered twice", c.Name)
		}
		seen[c.Name] = true
	}
	for _, n := range remove {
		delete(r.byName, n)
	}
	r.cmds = slices.DeleteFunc(r.cmds, func(c *Command) bool { return slices.Contains(remove, c.Name) })
	for _, c := range cmds {
		r.cmds = append(r.cmds, c)
		r.byName[c.Name] = c
	}
	if len(remove) > 0 {
		r.mu.Lock()
		for client, l := range r.last {
			if slices.Contains(remove, l.cmd.Name) && r.byName[l.cmd.Name] != l.cmd {
				delete(r.last, client) // what a refinement would change is gone
			}
		}
		r.mu.Unlock()
	}
	return nil
}

// Commands lists the registered commands in registration order.
func (r *Registry) Commands() []*Command {
	r.cat.RLock()
	defer r.cat.RUnlock()
	return slices.Clone(r.cmds)
}

// Lookup returns the command called name.
func (r *Registry) Lookup(name string) (*Command, bool) {
	r.cat.RLock()
	defer r.cat.RUnlock()
	c, ok := r.byName[name]
	return c, ok
}

// Now is the registry's clock in the user's time zone.
func (r *Registry) Now() time.Time { return r.o.Now().In(r.zone.Load()) }

// Route is an utterance the offline path handles.
type Route struct {
	Command *Command
	Claim   Claim
	// Refine is set when the utterance changes the last call.
	Refine bool
}

// RunRoute carries out an utterance the offline path understood. for the
// client in ctx.
func (r *Registry) RunRoute(ctx context.Context, rt Route, text string) Response {
	var refines map[string]any
	if rt.Refine {
		r.mu.Lock()
		if l := r.last[ClientOf(ctx).ID]; l != nil {
			refines = l.data
		}
		r.mu.Unlock()
	}
	resp := r.call(ctx, rt.Command, rt.Claim.Arguments, text, false, refines)
	if rt.Claim.Spoken != "" && resp.Kind == Success {
		resp.Spoken = rt.Claim.Spoken
	}
	return resp
}

// Call runs the command name with a model's arguments for the utterance.
func (r *Registry) Call(ctx context.Context, name string, args map[string]any, text string) Response {
	c, ok := r.Lookup(name)
	if !ok || c.Hidden { // a hidden command is the offline path's alone
		l := locale.Speaking(ctx)
		return Response{Kind: Failure, Spoken: l.T("I don't know how to do that."), Data: map[string]any{"error": fmt.Sprintf("%s: %v", name, ErrUnknown)}}
	}
	return r.call(ctx, c, args, text, true, nil)
}

// Forget drops the memory of a client's last call, so nothing refines
// it: its conversation ended.
func (r *Registry) Forget(client string) {
	r.mu.Lock()
	delete(r.last, client)
	r.mu.Unlock()
}

// call takes one call through the whole lifecycle.
func (r *Registry) call(ctx context.Context, c *Command, raw map[string]any, text string, fromModel bool, refines map[string]any) Response {
	if AreaOf(ctx) == "" && r.o.Area != "" {
		ctx = WithArea(ctx, r.o.Area)
	}
	args := Args(maps.Clone(raw))
	if args == nil {
		args = Args{}
	}
	if fromModel && c.PostProcess != nil {
		args = c.PostProcess(args, text)
	}
	for k, v := range args {
		if isArtefact(v) {
			delete(args, k)
		}
	}
	if resp, ok := r.checkSecrets(ctx, c); !ok {
		return resp
	}
	var problems []Problem
	for _, p := range c.Parameters {
		if p.Required && !args.Has(p.Name) {
			problems = append(problems, Problem{Param: p.Name, Message: "missing required parameter " + p.Name, Valid: p.Enum})
		}
	}
	if len(problems) > 0 {
		return r.invalid(ctx, c, args, problems, fromModel)
	}
	for _, p := range c.Parameters {
		v, ok := args[p.Name]
		if !ok {
			continue
		}
		cv, prob := p.validate(v, r.Now())
		if prob != nil {
			problems = append(problems, *prob)
			continue
		}
		args[p.Name] = cv
	}
	if len(problems) == 0 && c.Validate != nil {
		for _, pr := range c.Validate(ctx, args) {
			if pr.Suggest != nil {
				r.log.Debug("argument corrected", "command", c.Name, "param", pr.Param)
				args[pr.Param] = pr.Suggest
				continue
			}
			problems = append(problems, pr)
		}
	}
	if len(problems) > 0 {
		return r.invalid(ctx, c, args, problems, fromModel)
	}
	for _, p := range c.Parameters {
		if !args.Has(p.Name) && p.Default != nil {
			if v, prob := p.validate(p.Default, r.Now()); prob == nil {
				args[p.Name] = v
			}
		}
	}
	unset := r.o.Synced != nil && !r.o.Synced()
	resp, err := c.Run(ctx, Call{Args: args, Utterance: text, Language: locale.LanguageOf(ctx), Now: r.Now(), ClockUnset: unset, Refines: refines})
	if err == nil && resp.Kind == Invalid && len(resp.Problems) > 0 && !fromModel {
		// What only the run finds missing ("For which city?" with no
		// home set) is asked back as a missing argument is.
		if asked, ok := r.askBack(ctx, c, args, resp.Problems[0]); ok {
			return asked
		}
	}
	if err != nil {
		r.log.Warn("command failed", "command", c.Name, "err", err)
		l := locale.Speaking(ctx)
		spoken := l.T("Sorry, that didn't work.")
		switch {
		case errors.Is(err, storage.ErrFull):
			spoken = l.T("My storage is full, so I couldn't save that.")
		case errors.Is(err, storage.ErrUnavailable):
			spoken = l.T("I can't save that right now: my storage card has a problem.")
		}
		return Response{Kind: Failure, Spoken: spoken, Data: map[string]any{"error": err.Error()}}
	}
	if resp.Kind == Success || resp.Kind == FollowUp {
		r.mu.Lock()
		r.last[ClientOf(ctx).ID] = &lastCall{cmd: c, args: args, data: resp.Data, at: r.o.Now(), lang: locale.LanguageOf(ctx)}
		r.mu.Unlock()
	}
	return resp
}

func (r *Registry) checkSecrets(ctx context.Context, c *Command) (Response, bool) {
	var missing []string
	for _, s := range c.Secrets {
		if !s.Required {
			continue
		}
		v := ""
		if r.o.Secrets != nil {
			var err error
			if v, err = r.o.Secrets.Get(ctx, s.Key); err != nil {
				r.log.Warn("read secret failed", "command", c.Name, "secret", s.Key, "err", err)
			}
		}
		if v == "" {
			missing = append(missing, s.Key)
		}
	}
	if len(missing) == 0 {
		return Response{}, true
	}
	name := c.Name
	if c.Hidden && c.Alias != "" {
		name = c.Alias // the offline path's own command is the one it stands for to the user
	}
	what := strings.ReplaceAll(name, "_", " ")
	l := locale.Speaking(ctx)
	return Response{
		Kind:   Failure,
		Spoken: sentenceCase(l.T("%s isn't set up yet. To set it up, run: hark secrets set %s.", what, missing[0])),
		Data:   map[string]any{"error": "missing secrets", "missing_secrets": missing},
	}, false
}

// invalid says what is wrong with a call's arguments; on the offline path,
// when the first problem is a parameter the command asks for, it asks
// that instead and keeps the call for the answer to refine.
func (r *Registry) invalid(ctx context.Context, c *Command, args Args, problems []Problem, fromModel bool) Response {
	if !fromModel {
		if asked, ok := r.askBack(ctx, c, args, problems[0]); ok {
			return asked
		}
	}
	return invalid(ctx, c, problems)
}

// askBack asks the question of the parameter problem is about, when it
// has one, and keeps the call as the client's last, awaiting the answer.
func (r *Registry) askBack(ctx context.Context, c *Command, args Args, problem Problem) (Response, bool) {
	for _, p := range c.Parameters {
		if p.Name != problem.Param || p.Ask == "" {
			continue
		}
		data := map[string]any{"awaiting": p.Name}
		r.mu.Lock()
		r.last[ClientOf(ctx).ID] = &lastCall{cmd: c, args: args, data: data, at: r.o.Now(), lang: locale.LanguageOf(ctx)}
		r.mu.Unlock()
		return Response{Kind: FollowUp, Spoken: locale.Speaking(ctx).T(p.Ask), Data: data}, true
	}
	return Response{}, false
}

func invalid(ctx context.Context, c *Command, problems []Problem) Response {
	l := locale.Speaking(ctx)
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Message)
	}
	return Response{
		Kind:     Invalid,
		Problems: problems,
		Spoken:   l.T("I couldn't do that: %s.", strings.Join(msgs, "; ")),
		Data:     map[string]any{"error": "invalid arguments for " + c.Name, "problems": msgs},
	}
}

func sentenceCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

type areaKey struct{}

// WithArea returns ctx carrying the room of the speaker a call is made on,
// which timers set under it keep ("the kitchen timer").
func WithArea(ctx context.Context, area string) context.Context {
	return context.WithValue(ctx, areaKey{}, area)
}

// AreaOf is the room WithArea put in ctx, or "".
func AreaOf(ctx context.Context) string {
	s, _ := ctx.Value(areaKey{}).(string)
	return s
}
