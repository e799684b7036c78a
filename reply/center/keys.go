package center

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Settings is where the center keeps what outlives it: the nodes' keys
// and whose each conversation is. *storage.Settings is one.
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
// whose its conversations are: the node is gone, and so is its claim on
// them.
func (k *Keys) Revoke(ctx context.Context, id string) error {
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
	if err := k.forget(ctx, func(node string) bool { return node == id }); err != nil {
		return fmt.Errorf("center: revoke node %s: its key no longer works, but the records of its conversations remain: %w", id, err)
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

// forget deletes the records of whose a conversation is of the nodes
// gone says are gone. The caller holds k.mu.
func (k *Keys) forget(ctx context.Context, gone func(node string) bool) error {
	keys, err := k.s.Keys(ctx, ownerPrefix)
	if err != nil {
		return fmt.Errorf("list the conversations' nodes: %w", err)
	}
	for _, key := range keys {
		var owner string
		if _, err := k.s.Get(ctx, key, &owner); err != nil {
			return fmt.Errorf("read the node of conversation %s: %w", strings.TrimPrefix(key, ownerPrefix), err)
		}
		if !gone(owner) {
			continue
		}
		if err := k.s.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete the node of conversation %s: %w", strings.TrimPrefix(key, ownerPrefix), err)
		}
	}
	return nil
}

// Claim gives conversation to node, unless another node has it; it
// reports that node's id when one does.
func (k *Keys) Claim(ctx context.Context, conversation, node string) (other string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var owner string
	ok, err := k.s.Get(ctx, ownerKey(conversation), &owner)
	if err != nil {
		return "", fmt.Errorf("center: read the conversation's node: %w", err)
	}
	if ok && owner != node {
		return owner, nil
	}
	if !ok {
		if err := k.s.Set(ctx, ownerKey(conversation), node); err != nil {
			return "", fmt.Errorf("center: keep the conversation's node: %w", err)
		}
	}
	return "", nil
}
