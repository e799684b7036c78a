package center

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

// startIn starts conversation conv as the node of cred, and returns the
// answer's status code.
func startIn(t *testing.T, h http.Handler, cred, conv string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, PathStart, strings.NewReader(`{"conversation_id":"`+conv+`","node_context":{"timezone":"UTC"}}`))
	req.Header.Set("X-API-Key", cred)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// stored is every key the center keeps in dir's store, read back from
// the disk.
func stored(t *testing.T, dir string) []string {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, err := db.Settings().Keys(t.Context(), "center/")
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// leftWaiting has the center ask the node of cred for a timer, in
// conversation conv, which the node never answers: the reply's record
// stays.
func leftWaiting(t *testing.T, c *centerSide, cred, conv string) {
	t.Helper()
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 600}}}})
	start, _ := json.Marshal(jarvisStart(conv, timerTool()))
	command, _ := json.Marshal(CommandRequest{VoiceCommand: "watch the brew for ten minutes", ConversationID: conv})
	for _, r := range []struct {
		path string
		body []byte
	}{{PathStart, start}, {PathCommand, command}} {
		req := httptest.NewRequest(http.MethodPost, r.path, bytes.NewReader(r.body))
		req.Header.Set("X-API-Key", cred)
		rec := httptest.NewRecorder()
		c.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", r.path, rec.Code, rec.Body)
		}
	}
	if keys, _ := c.db.Settings().Keys(t.Context(), turnPrefix); len(keys) != 1 {
		t.Fatalf("records of replies: %q; want the one left waiting", keys)
	}
}

// TestRevokedNodeLeavesNoRecords: a node revoked (unpaired) leaves nothing
// of its conversations in the store, nor of a reply it left waiting for
// its tool, nor its client tools; the other nodes' stay theirs.
func TestRevokedNodeLeavesNoRecords(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	kitchen := addNode(t, c.keys, "kitchen")
	hall := addNode(t, c.keys, "hall")
	h := c.srv.Handler()
	for _, s := range []struct{ cred, conv string }{{kitchen, "kitchen-1"}, {kitchen, "kitchen/2"}, {hall, "hall-1"}} {
		if code := startIn(t, h, s.cred, s.conv); code != http.StatusOK {
			t.Fatalf("start of %s: %d", s.conv, code)
		}
	}
	leftWaiting(t, c, kitchen, "kitchen-3")
	c.closeServer()
	if err := c.keys.Revoke(t.Context(), "kitchen"); err != nil {
		t.Fatal(err)
	}
	c.stop()
	want := []string{ownerKey("hall-1"), keysSetting, toolsPrefix + "hall"}
	if got := stored(t, dir); !slices.Equal(got, want) {
		t.Errorf("the store after the kitchen was revoked holds %q; want only %q", got, want)
	}
}

// TestStaleOwnerRecordsLapse: whose a conversation is is kept while the
// conversation is open and for two days after its last use, longer than
// the engine ever reads its history back through its id; then the record
// lapses. A node's that is no longer enrolled lapses at once, and one
// kept by an older center (the node's id alone) lapses two days after
// it is first seen. One that cannot be read is left as it is.
func TestStaleOwnerRecordsLapse(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	defer c.stop()
	kitchen := addNode(t, c.keys, "kitchen")
	hall := addNode(t, c.keys, "hall")
	h := c.srv.Handler()
	ctx := t.Context()
	settings := c.db.Settings()
	began := time.Now()
	for _, s := range []struct{ cred, conv string }{{kitchen, "kitchen-1"}, {hall, "hall-1"}} {
		if code := startIn(t, h, s.cred, s.conv); code != http.StatusOK {
			t.Fatalf("start of %s: %d", s.conv, code)
		}
	}
	settings.Set(ctx, ownerKey("kitchen-old"), "kitchen") // as a center before this one kept it
	settings.Set(ctx, ownerKey("gone-1"), owner{Node: "gone", Used: began})
	settings.Set(ctx, ownerKey("garbled"), 42) // never deleted unread
	c.srv.sweep(ctx, began)
	c.srv.expire(began.Add(time.Hour)) // both conversations lapse on the center
	if code := startIn(t, h, kitchen, "kitchen-2"); code != http.StatusOK {
		t.Fatalf("start of kitchen-2: %d", code)
	}
	keys := func() []string {
		t.Helper()
		k, err := settings.Keys(ctx, ownerPrefix)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	want := []string{ownerKey("garbled"), ownerKey("hall-1"), ownerKey("kitchen-1"), ownerKey("kitchen-2"), ownerKey("kitchen-old")}
	if got := keys(); !slices.Equal(got, want) {
		t.Errorf("after a sweep: %q; want %q (the unknown node's gone)", got, want)
	}
	c.srv.sweep(ctx, began.Add(ownerLifetime-time.Minute))
	if got := keys(); !slices.Equal(got, want) {
		t.Errorf("a minute short of the lifetime: %q; want %q", got, want)
	}
	c.srv.sweep(ctx, time.Now().Add(ownerLifetime+time.Minute))
	if got, want := keys(), []string{ownerKey("garbled"), ownerKey("kitchen-2")}; !slices.Equal(got, want) {
		t.Errorf("past the lifetime: %q; want %q: the one that cannot be read, and the one still open", got, want)
	}
	// A lapsed conversation is anyone's again (its history is no longer
	// read through its id): the hall may start it, once the center has
	// forgotten it lapsed.
	c.srv.expire(time.Now().Add(ownerLifetime + time.Minute))
	if code := startIn(t, h, hall, "kitchen-1"); code != http.StatusOK {
		t.Errorf("the hall starting a lapsed conversation of the kitchen's: %d, want 200", code)
	}
}

// TestUnendedReplyRecordLapses: the record of a reply that never ended
// (its node went away) is kept for the request asked again, for
// turnLifetime, and then deleted.
func TestUnendedReplyRecordLapses(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	began := time.Now()
	leftWaiting(t, c, addNode(t, c.keys, "pantry"), "pantry-1")
	c.closeServer()
	count := func() int {
		keys, err := c.db.Settings().Keys(t.Context(), turnPrefix)
		if err != nil {
			t.Fatal(err)
		}
		return len(keys)
	}
	c.srv.sweep(t.Context(), began.Add(turnLifetime-time.Minute))
	if n := count(); n != 1 {
		t.Errorf("a minute short of the lifetime: %d records; want the one", n)
	}
	c.srv.sweep(t.Context(), time.Now().Add(turnLifetime+time.Minute))
	if n := count(); n != 0 {
		t.Errorf("past the lifetime: %d records; want none", n)
	}
}
