package storage

import (
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
