package storage

import (
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
