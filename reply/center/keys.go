package center

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Settings is where the center keeps what outlives it: the nodes' keys,
// whose each conversation is, what the tools of a reply under way did, and
// the client tools each node last registered.
// *storage.Settings is one.
type Settings interface {
	Get(ctx context.Context, key string, v any) (bool, error)
	Set(ctx context.Context, key string, v any) error
	// Delete removes key; one not set is no error.
	Delete(ctx context.Context, key string) error
	// Keys lists the keys that begin with prefix.
	Keys(ctx context.Context, prefix string) ([]string, error)
}

// NodeInfo is an enrolled node as `hark center nodes list` shows it.
type NodeInfo struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Added   time.Time `json:"added"`
	Revoked bool      `json:"revoked,omitempty"`
	// Room is where the node stands, as the center keeps it: a Jarvis
	// node never says, and a Hark node's own word only counts when this
	// is empty.
	Room string `json:"room,omitempty"`
	// Hash is the SHA-256 of the node's key: the key itself is shown
	// once, when the node is added, and kept nowhere.
	Hash string `json:"hash"`
}

// Keys are the nodes' credentials. Safe for concurrent use.
type Keys struct {
	s  Settings
	mu sync.Mutex
}

const keysSetting = "center/nodes"

// NewKeys keeps the credentials in s.
func NewKeys(s Settings) *Keys { return &Keys{s: s} }

// ErrBadCredential: no such node, a revoked one, or the wrong key.
var ErrBadCredential = errors.New("center: unknown node or wrong key")

var nodeName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// Add enrolls a node named name and returns its credential NODE_ID:KEY,
// which is shown once.
func (k *Keys) Add(ctx context.Context, name string) (string, error) {
	return k.Enrol(ctx, Enrolment{Name: name})
}

// Enrolment is a node to enrol: its name, and the id and key it already
// has (a Jarvis node set up for another center) or none, for new ones.
type Enrolment struct {
	Name string
	// ID is the node's id; empty derives one from Name.
	ID string
	// Key is the node's key; empty makes a new one.
	Key  string
	Room string
}

var (
	nodeID  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	nodeKey = regexp.MustCompile(`^[!-~]{8,256}$`)
)

// Enrol enrolls a node and returns its credential NODE_ID:KEY, which is
// shown once.
func (k *Keys) Enrol(ctx context.Context, e Enrolment) (string, error) {
	id := e.ID
	if id == "" {
		id = strings.ToLower(strings.TrimSpace(e.Name))
		id = strings.Join(strings.FieldsFunc(id, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }), "-")
		if !nodeName.MatchString(id) {
			return "", fmt.Errorf("center: node name %q: use letters, digits and dashes, at most 40", e.Name)
		}
	} else if !nodeID.MatchString(id) {
		return "", fmt.Errorf("center: node id %q: use letters, digits, dots, dashes and underscores, at most 64", id)
	}
	if e.Name == "" {
		e.Name = id
	}
	key := e.Key
	switch {
	case key != "" && !nodeKey.MatchString(key):
		return "", fmt.Errorf("center: the key of node %q: want 8 to 256 printable characters without spaces", id)
	case key == "":
		raw := make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return "", fmt.Errorf("center: %w", err)
		}
		key = base64.RawURLEncoding.EncodeToString(raw)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	nodes, err := k.load(ctx)
	if err != nil {
		return "", err
	}
	if slices.ContainsFunc(nodes, func(n NodeInfo) bool { return n.ID == id && !n.Revoked }) {
		return "", fmt.Errorf("center: node %q already exists (revoke it first to issue a new key)", id)
	}
	nodes = slices.DeleteFunc(nodes, func(n NodeInfo) bool { return n.ID == id })
	nodes = append(nodes, NodeInfo{ID: id, Name: e.Name, Room: strings.TrimSpace(e.Room), Added: time.Now().UTC(), Hash: hash(key)})
	if err := k.s.Set(ctx, keysSetting, nodes); err != nil {
		return "", fmt.Errorf("center: add node: %w", err)
	}
	return id + ":" + key, nil
}

// List is every enrolled node.
func (k *Keys) List(ctx context.Context) ([]NodeInfo, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.load(ctx)
}

// Revoke stops a node's key from working, and deletes the records of
// whose its conversations are, of its replies under way and of its client
// tools: the node is gone, and so is its claim on them.
func (k *Keys) Revoke(ctx context.Context, id string) error {
	if err := k.revoke(ctx, id); err != nil {
		return err
	}
	_, err := k.sweep(ctx, time.Now(), func(_ string, o owner) verdict {
		if o.Node == id {
			return drop
		}
		return keep
	})
	if err == nil {
		err = deleteTurns(ctx, k.s, id)
	}
	if err == nil {
		err = deleteTools(ctx, k.s, id)
	}
	if err != nil {
		return fmt.Errorf("center: revoke node %s: its key no longer works, but the records of its conversations remain: %w", id, err)
	}
	return nil
}

func (k *Keys) revoke(ctx context.Context, id string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	nodes, err := k.load(ctx)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(nodes, func(n NodeInfo) bool { return n.ID == id })
	if i < 0 {
		return fmt.Errorf("center: no node %q", id)
	}
	nodes[i].Revoked = true
	if err := k.s.Set(ctx, keysSetting, nodes); err != nil {
		return fmt.Errorf("center: revoke node: %w", err)
	}
	return nil
}

// Check returns the node a credential NODE_ID:KEY belongs to.
func (k *Keys) Check(ctx context.Context, credential string) (NodeInfo, error) {
	id, key, ok := strings.Cut(credential, ":")
	if !ok || id == "" || key == "" {
		return NodeInfo{}, ErrBadCredential
	}
	k.mu.Lock()
	nodes, err := k.load(ctx)
	k.mu.Unlock()
	if err != nil {
		return NodeInfo{}, err
	}
	want := hash(key)
	for _, n := range nodes {
		if n.ID == id && !n.Revoked && subtle.ConstantTimeCompare([]byte(n.Hash), []byte(want)) == 1 {
			return n, nil
		}
	}
	return NodeInfo{}, ErrBadCredential
}

func (k *Keys) load(ctx context.Context) ([]NodeInfo, error) {
	var nodes []NodeInfo
	if _, err := k.s.Get(ctx, keysSetting, &nodes); err != nil {
		return nil, fmt.Errorf("center: read nodes: %w", err)
	}
	return nodes, nil
}

func hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// ownerKey is where the node a conversation belongs to is kept, so that
// after the center restarts no node takes up another's conversation (and
// its history) by naming its id.
func ownerKey(conversation string) string { return ownerPrefix + conversation }

const ownerPrefix = "center/conversation/"

// owner is whose a conversation is, and when the center last served it.
type owner struct {
	Node string    `json:"node"`
	Used time.Time `json:"used"`
}

// UnmarshalJSON reads a record as it is kept, or as centers before kept
// it: the node's id alone, with no time.
func (o *owner) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*o = owner{}
		return json.Unmarshal(b, &o.Node)
	}
	type plain owner
	return json.Unmarshal(b, (*plain)(o))
}

// A conversation's history is read back through its id only while the
// conversation goes on (the engine's lapse after its last exchange), and
// never more than a day back: the record of whose it is guards nothing
// two days after the center last served it, and lapses then. While the
// conversation is served its record is written again each ownerRefresh.
const (
	ownerLifetime = 48 * time.Hour
	ownerRefresh  = time.Hour
)

// Claim gives conversation to node, unless another node has it; it
// reports that node's id when one does. The record says the conversation
// is served now.
func (k *Keys) Claim(ctx context.Context, conversation, node string) (other string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var o owner
	ok, err := k.s.Get(ctx, ownerKey(conversation), &o)
	if err != nil {
		return "", fmt.Errorf("center: read the conversation's node: %w", err)
	}
	if ok && o.Node != node {
		return o.Node, nil
	}
	if err := k.s.Set(ctx, ownerKey(conversation), owner{Node: node, Used: time.Now()}); err != nil {
		return "", fmt.Errorf("center: keep the conversation's node: %w", err)
	}
	return "", nil
}

// verdict is what becomes of a record of whose a conversation is.
type verdict int

const (
	keep  verdict = iota
	drop          // delete it
	stamp         // keep it, served as of now (a record with no time)
)

// sweep goes over the records of whose each conversation is, deleting or
// stamping each as decide says, and reports how many it deleted. Each
// record is read and changed under k.mu, so that no Claim comes between.
// A record it cannot read or change is left as it is, and the others
// are gone over still; the first such failure is returned.
func (k *Keys) sweep(ctx context.Context, now time.Time, decide func(conversation string, o owner) verdict) (int, error) {
	keys, err := k.s.Keys(ctx, ownerPrefix)
	if err != nil {
		return 0, fmt.Errorf("list the conversations' nodes: %w", err)
	}
	deleted := 0
	var failed error
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		conv := strings.TrimPrefix(key, ownerPrefix)
		dropped, err := func() (bool, error) {
			k.mu.Lock()
			defer k.mu.Unlock()
			var o owner
			ok, err := k.s.Get(ctx, key, &o)
			if err != nil || !ok { // !ok: deleted meanwhile
				return false, err
			}
			switch decide(conv, o) {
			case drop:
				return true, k.s.Delete(ctx, key)
			case stamp:
				o.Used = now
				return false, k.s.Set(ctx, key, o)
			}
			return false, nil
		}()
		switch {
		case err != nil && failed == nil:
			failed = fmt.Errorf("conversation %s: %w", conv, err)
		case err == nil && dropped:
			deleted++
		}
	}
	return deleted, failed
}

// lapse deletes the records of whose a conversation is that guard
// nothing as of now: those of nodes no longer enrolled (or revoked), and
// those the center has not served for ownerLifetime, unless open says the
// conversation is open. A record with no time (an older center's) is
// stamped now, and lapses a lifetime later.
func (k *Keys) lapse(ctx context.Context, now time.Time, open func(conversation string) bool) (int, error) {
	k.mu.Lock()
	nodes, err := k.load(ctx)
	k.mu.Unlock()
	if err != nil {
		return 0, err
	}
	enrolled := map[string]bool{}
	for _, n := range nodes {
		enrolled[n.ID] = !n.Revoked
	}
	n, err := k.sweep(ctx, now, func(conv string, o owner) verdict {
		switch {
		case !enrolled[o.Node]:
			return drop
		case open(conv):
			return keep
		case o.Used.IsZero():
			return stamp
		case now.Sub(o.Used) > ownerLifetime:
			return drop
		}
		return keep
	})
	if err != nil {
		return n, fmt.Errorf("center: lapse the conversations' nodes: %w", err)
	}
	return n, nil
}
