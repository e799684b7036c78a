package storage

import (
	"slices"
	"strings"
)

// held is what was written while the card could not take it: the newest
// value (or deletion) of each key, in the order the keys were written,
// until it can be written to the card. Guarded by DB.mu.
type held struct {
	m   map[string]change
	seq uint64
}

// change is one held write: a value, or a deletion.
type change struct {
	value   []byte
	deleted bool
	seq     uint64
}

func (h *held) put(key string, value []byte, deleted bool) {
	if h.m == nil {
		h.m = map[string]change{}
	}
	h.seq++
	h.m[key] = change{value: value, deleted: deleted, seq: h.seq}
}

func (h *held) len() int { return len(h.m) }

// get returns the held change of key, if any.
func (h *held) get(key string) (change, bool) {
	c, ok := h.m[key]
	return c, ok
}

// under returns the held keys under prefix, in key order.
func (h *held) under(prefix string) []string {
	var keys []string
	for k := range h.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// ordered returns the held keys in the order they were written.
func (h *held) ordered() []string {
	keys := make([]string, 0, len(h.m))
	for k := range h.m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return int(h.m[a].seq) - int(h.m[b].seq) })
	return keys
}

// drop forgets the changes that were written, unless they were written
// again meanwhile.
func (h *held) drop(written map[string]uint64) {
	for k, seq := range written {
		if c, ok := h.m[k]; ok && c.seq == seq {
			delete(h.m, k)
		}
	}
}
