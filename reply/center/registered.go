package center

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// A Jarvis node registers its client tools only when it starts a
// conversation, and goes on in it for as long as its follow-up window
// lasts. A center that restarts quietly in that window knows the
// conversation no more, and a node's next question in it must not find it
// without the node's tools: so the center keeps, in its store, the tools
// each node last registered, and a conversation it makes anew for a
// command gets them.

// toolsPrefix is where each node's last registered client tools are kept:
// center/tools/NODE.
const toolsPrefix = "center/tools/"

// registered is a node's last conversation start's client tools, as kept.
type registered struct {
	Tools []Tool    `json:"tools"`
	At    time.Time `json:"at"` // when the node first registered them
}

// keptTools are the digests of the tools the server kept for each node,
// so that the same tools sent again (a Jarvis node sends them with every
// request, up to StartLimit) are not written again.
type keptTools struct {
	mu   sync.Mutex // held across a write, so that the digest is the store's
	sums map[string][sha256.Size]byte
}

// keepTools keeps tools as the ones node last registered, unless they are
// those it kept last; failing, the conversation goes on, and only one
// made anew after a restart would find fewer tools.
func (s *Server) keepTools(ctx context.Context, node string, tools []Tool) {
	rec := registered{Tools: tools, At: time.Now()}
	if rec.Tools == nil {
		rec.Tools = []Tool{}
	}
	b, err := json.Marshal(rec.Tools)
	if err != nil {
		s.log.Warn("keeping the node's client tools failed; a conversation made anew after a restart has none", "node", node, "err", err)
		return
	}
	sum := sha256.Sum256(b)
	k := &s.keptTools
	k.mu.Lock()
	defer k.mu.Unlock()
	if last, ok := k.sums[node]; ok && last == sum {
		return
	}
	if err := s.o.Keys.s.Set(context.WithoutCancel(ctx), toolsPrefix+node, rec); err != nil {
		delete(k.sums, node)
		s.log.Warn("keeping the node's client tools failed; a conversation made anew after a restart has none", "node", node, "err", err)
		return
	}
	if k.sums == nil {
		k.sums = map[string][sha256.Size]byte{}
	}
	k.sums[node] = sum
}

// lastTools are the client tools node last registered, or none.
func (s *Server) lastTools(ctx context.Context, node string) []Tool {
	var rec registered
	if _, err := s.o.Keys.s.Get(ctx, toolsPrefix+node, &rec); err != nil {
		s.log.Warn("reading the node's last client tools failed; the conversation is made anew without them", "node", node, "err", err)
		return nil
	}
	return rec.Tools
}

// deleteTools deletes the record of node's last client tools.
func deleteTools(ctx context.Context, s Settings, node string) error {
	if err := s.Delete(ctx, toolsPrefix+node); err != nil {
		return fmt.Errorf("delete the record of its client tools: %w", err)
	}
	return nil
}
