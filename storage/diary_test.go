package storage

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func TestDiarySearch(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	d := db.Diary()
	day := func(n int) time.Time { return time.Date(2026, 11, n, 12, 0, 0, 0, time.UTC) }
	for _, e := range []DiaryEntry{
		{Conversation: "a", Date: day(1), Summary: "Talked about the Dune films and Denis Villeneuve.", Keywords: []string{"dune", "films"}},
		{Conversation: "b", Date: day(10), Summary: "Planned a trip to Lisbon in spring.", Keywords: []string{"travel", "lisbon"}},
		{Conversation: "c", Date: day(20), Summary: "Asked for pasta recipes; liked carbonara.", Keywords: []string{"cooking", "pasta"}},
		{Conversation: "d", Date: day(21), Summary: "More about Dune: the books.", Keywords: []string{"dune", "books"}},
	} {
		if err := d.Add(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db = open(t, dir)
	defer db.Close()
	d = db.Diary()
	got, _ := d.Search(t.Context(), []string{"dune"}, time.Time{}, time.Time{}, 5)
	if len(got) != 2 || got[0].Conversation != "d" || got[1].Conversation != "a" {
		t.Errorf("dune = %+v, want d then a", got)
	}
	got, _ = d.Search(t.Context(), []string{"dune"}, day(15), time.Time{}, 5)
	if len(got) != 1 || got[0].Conversation != "d" {
		t.Errorf("dune since the 15th = %+v", got)
	}
	got, _ = d.Search(t.Context(), nil, day(5), day(20), 5)
	if len(got) != 2 || got[0].Conversation != "c" {
		t.Errorf("range only = %+v", got)
	}
	if ok, _ := d.Has(t.Context(), "b"); !ok {
		t.Error("Has(b) = false")
	}
	if ok, _ := d.Has(t.Context(), "zz"); ok {
		t.Error("Has(zz) = true")
	}
}

func TestDiaryMissing(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	d := db.Diary()
	day := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, e := range []DiaryEntry{
		{Conversation: "c1", Date: day, Summary: "Talked about Lisbon."},
		{Conversation: "kitchen/c2", Date: day.Add(time.Hour), Summary: "Set a timer."},
		// The date's last byte is '/' (0x2f): the entry of "x", not "/x".
		{Conversation: "x", Date: time.Unix(0, 0x2f), Summary: "Long ago."},
	} {
		if err := d.Add(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		asked, want []string
	}{
		{nil, nil},
		{[]string{"c1"}, nil},
		{[]string{"c9"}, []string{"c9"}},
		{[]string{"c9", "c1", "c8"}, []string{"c9", "c8"}},
		{[]string{"c2"}, []string{"c2"}}, // only another's id ends like it
		{[]string{"kitchen/c2", "c1"}, nil},
		{[]string{"c9", "c9"}, []string{"c9"}},
		{[]string{"x"}, nil},
		{[]string{"/x"}, []string{"/x"}},
	} {
		got, err := d.Missing(t.Context(), c.asked)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Missing(%q) = %q, %v; want %q", c.asked, got, err, c.want)
		}
	}
	if ok, err := d.Has(t.Context(), "c2"); ok || err != nil {
		t.Errorf("Has(c2) = %v, %v; want false: only kitchen/c2 has an entry", ok, err)
	}
}

// Entries reads the entries as they are stored: those older Hark versions
// wrote, without the exchange they cover, read as before with Through
// zero; a rewritten entry replaces the one of the same conversation and
// date; one that does not decode still counts as written, dated by its
// key.
func TestDiaryEntries(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	d := db.Diary()
	day := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// As an older version stored them.
	old := DiaryEntry{Conversation: "old", Date: day, Summary: "Talked about Lisbon.", Keywords: []string{"lisbon"}}
	bad := DiaryEntry{Conversation: "bad", Date: day.Add(time.Hour)}
	for _, c := range []kv{
		{key: diaryKey(old), value: []byte(`{"conversation":"old","date":"2026-11-01T12:00:00Z","summary":"Talked about Lisbon.","keywords":["lisbon"]}`)},
		{key: diaryKey(bad), value: []byte(`{"conversation":`)},
	} {
		if err := db.apply(t.Context(), "test", []kv{c}, false); err != nil {
			t.Fatal(err)
		}
	}
	first := DiaryEntry{Conversation: "new", Date: day.Add(2 * time.Hour), Summary: "Set a timer.", Keywords: []string{"timer"}, Through: day.Add(2*time.Hour + time.Minute)}
	again := first
	again.Summary, again.Through = "Set a timer, then asked about pasta.", day.Add(5*time.Hour)
	for _, e := range []DiaryEntry{first, again} {
		if err := d.Add(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	db = open(t, dir)
	defer db.Close()
	d = db.Diary()

	got, err := d.Entries(t.Context(), []string{"old", "new", "bad", "none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("Entries = %+v, want old, new and bad", got)
	}
	if e := got["old"]; e.Summary != old.Summary || !e.Date.Equal(old.Date) || !e.Through.IsZero() || !slices.Equal(e.Keywords, old.Keywords) {
		t.Errorf("old entry = %+v, want %+v with Through zero", e, old)
	}
	if e := got["new"]; e.Summary != again.Summary || !e.Through.Equal(again.Through) || !e.Date.Equal(again.Date) {
		t.Errorf("rewritten entry = %+v, want %+v", e, again)
	}
	if e, ok := got["bad"]; !ok || e.Conversation != "bad" || !e.Date.Equal(bad.Date) {
		t.Errorf("undecodable entry = %+v, %v; want it dated %v by its key", e, ok, bad.Date)
	}
	if got, _ := d.Search(t.Context(), []string{"timer"}, time.Time{}, time.Time{}, 5); len(got) != 1 || got[0].Summary != again.Summary {
		t.Errorf("search after the rewrite = %+v, want the one rewritten entry", got)
	}
	if got, _ := d.Search(t.Context(), []string{"lisbon"}, time.Time{}, time.Time{}, 5); len(got) != 1 || got[0].Conversation != "old" {
		t.Errorf("search for the old entry = %+v", got)
	}
}

// An entry without Through is stored as older versions stored entries
// (an older build reading it after a rollback sees what it wrote); one
// with it adds only the field.
func TestDiaryEntryStoredForm(t *testing.T) {
	day := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		e    DiaryEntry
		want string
	}{
		{DiaryEntry{Conversation: "c1", Date: day, Summary: "Lisbon.", Keywords: []string{"lisbon"}},
			`{"conversation":"c1","date":"2026-11-01T12:00:00Z","summary":"Lisbon.","keywords":["lisbon"]}`},
		{DiaryEntry{Conversation: "c1", Date: day, Summary: "Lisbon.", Through: day.Add(time.Minute)},
			`{"conversation":"c1","date":"2026-11-01T12:00:00Z","summary":"Lisbon.","through":"2026-11-01T12:01:00Z"}`},
	} {
		b, err := json.Marshal(c.e)
		if got := string(b); err != nil || got != c.want {
			t.Errorf("stored form of %+v:\ngot  %s (%v)\nwant %s", c.e, got, err, c.want)
		}
	}
}
