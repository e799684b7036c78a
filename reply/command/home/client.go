// Package home is Home Assistant as built-in commands: home_control turns
// things on and off, dims, colours, locks and opens them, and home_state
// says how they are, over Home Assistant's REST API (GET /api/states, POST
// /api/services/<domain>/<service>) with the HA_URL and HA_TOKEN secrets.
// Entity names come from the live state list, matched forgivingly to what
// the user said ("living room light" → light.living_room_main).
package home

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Secrets is where the URL and token are kept; *storage.Secrets is one.
type Secrets interface {
	Get(ctx context.Context, key string) (string, error)
}

// The secrets' names.
const (
	URLSecret   = "HA_URL"
	TokenSecret = "HA_TOKEN"
)

// ErrNotSetUp: no URL or token, or a token Home Assistant refuses.
var ErrNotSetUp = errors.New("home: Home Assistant isn't set up yet")

// ErrRefused: Home Assistant accepts the token but refused this one call
// (401 or 403): its user may not control that entity, or may not use
// that API (the template API is for administrators).
var ErrRefused = errors.New("home: Home Assistant refused the call")

// Entity is one thing Home Assistant knows.
type Entity struct {
	ID         string         `json:"entity_id"`
	State      string         `json:"state"`
	Attributes map[string]any `json:"attributes"`
	area       string         // the area's id, from the template API
}

// Name is the entity's friendly name, or its id.
func (e Entity) Name() string {
	if n, ok := e.Attributes["friendly_name"].(string); ok && n != "" {
		return n
	}
	return e.ID
}

// Domain is the part of the id before the dot: light, switch, lock...
func (e Entity) Domain() string { d, _, _ := strings.Cut(e.ID, "."); return d }

// Client talks to one Home Assistant. Safe for concurrent use.
type Client struct {
	secrets Secrets
	hc      *http.Client
	// Refresh is how long the state list is kept; default 30 s.
	Refresh time.Duration

	mu      sync.Mutex
	states  []Entity
	fetched time.Time
	house   *House
	houseAt time.Time
	// failed is why the house could not be read at failedAt.
	failed   error
	failedAt time.Time
	listCache
}

// NewClient returns a Client reading its URL and token from secrets.
func NewClient(secrets Secrets) *Client {
	return &Client{secrets: secrets, hc: &http.Client{Timeout: 10 * time.Second}, Refresh: 30 * time.Second}
}

// States is the state list, at most Refresh old.
func (c *Client) States(ctx context.Context) ([]Entity, error) {
	c.mu.Lock()
	if c.states != nil && time.Since(c.fetched) < c.Refresh {
		s := c.states
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	var states []Entity
	if err := c.do(ctx, http.MethodGet, statesPath, nil, &states); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.states, c.fetched = states, time.Now()
	c.mu.Unlock()
	return states, nil
}

// Forget drops the cached state list: the next call reads it again.
func (c *Client) Forget() {
	c.mu.Lock()
	c.states, c.house, c.failed = nil, nil, nil
	c.mu.Unlock()
}

// Call runs a service on an entity, with more data when given.
func (c *Client) Call(ctx context.Context, domain, service, entity string, data map[string]any) error {
	return c.CallMany(ctx, domain, service, []string{entity}, data)
}

// CallMany runs a service on entities at once (none for a service of no
// entity, such as shopping_list.add_item).
func (c *Client) CallMany(ctx context.Context, domain, service string, entities []string, data map[string]any) error {
	body := map[string]any{}
	switch len(entities) {
	case 0:
	case 1:
		body["entity_id"] = entities[0]
	default:
		body["entity_id"] = entities
	}
	for k, v := range data {
		body[k] = v
	}
	c.Forget() // the state changes
	return c.do(ctx, http.MethodPost, "/api/services/"+domain+"/"+service, body, nil)
}

// SetUp reports whether Home Assistant's address and token are kept. It
// asks nothing of Home Assistant: a token it would refuse counts.
func (c *Client) SetUp(ctx context.Context) bool {
	_, _, err := c.keys(ctx)
	return err == nil
}

// keys are Home Assistant's address and token; ErrNotSetUp when one is
// not kept.
func (c *Client) keys(ctx context.Context) (base, token string, err error) {
	if c.secrets == nil {
		return "", "", ErrNotSetUp
	}
	if base, err = c.secrets.Get(ctx, URLSecret); err != nil {
		return "", "", fmt.Errorf("home: %w", err)
	}
	if token, err = c.secrets.Get(ctx, TokenSecret); err != nil {
		return "", "", fmt.Errorf("home: %w", err)
	}
	if base == "" || token == "" {
		return "", "", ErrNotSetUp
	}
	return base, token, nil
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	base, token, err := c.keys(ctx)
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("home: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+path, rd)
	if err != nil {
		return fmt.Errorf("home: %s: %w", URLSecret, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("home: Home Assistant at %s does not answer: %w", base, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		// Home Assistant answers 401 both for a token it does not know and
		// for a call the token's user may not make: every user may read
		// the states, so a refusal elsewhere is the token's only when the
		// API refuses it too.
		if path != statesPath && path != apiPath && c.tokenWorks(ctx, base, token) {
			return fmt.Errorf("%w: %s %s: %d", ErrRefused, method, path, resp.StatusCode)
		}
		return fmt.Errorf("%w (the token was refused: %d)", ErrNotSetUp, resp.StatusCode)
	case resp.StatusCode >= 300:
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("home: %s %s: Home Assistant answered %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	if out == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if text, ok := out.(*string); ok { // a rendered template is plain text
		b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
		*text = string(b)
		return err
	}
	// A state list is small; one of megabytes is not Home Assistant's.
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(out); err != nil {
		return fmt.Errorf("home: %s: not Home Assistant's answer: %w", path, err)
	}
	return nil
}

// The paths every user's token may read: the states, and the API's root,
// which answers whether the API runs.
const (
	statesPath = "/api/states"
	apiPath    = "/api/"
)

// tokenWorks asks the API's root whether Home Assistant accepts the token
// at all; false when it refuses it or cannot be asked.
func (c *Client) tokenWorks(ctx context.Context, base, token string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+apiPath, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	return resp.StatusCode == http.StatusOK
}
