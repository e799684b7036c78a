package storage

import (
	"testing"
	"time"
)

func TestConversationsListAndDelete(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	base := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	d := db.Dialogue()
	for i, x := range []struct{ conv, user string }{{"a", "hi"}, {"b", "timer"}, {"a", "and you?"}, {"c", "weather"}} {
		if err := d.Append(ctx, Exchange{At: base.Add(time.Duration(i) * time.Minute), Conversation: x.conv, User: x.user}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Diary().Add(ctx, DiaryEntry{Conversation: "a", Date: base, Summary: "greetings"}); err != nil {
		t.Fatal(err)
	}
	convs, err := d.Conversations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range convs {
		got = append(got, c.ID)
	}
	if len(convs) != 3 || convs[0].ID != "c" || convs[1].ID != "a" || convs[2].ID != "b" || len(convs[1].Exchanges) != 2 || convs[1].Exchanges[1].User != "and you?" {
		t.Fatalf("conversations %v, want c, a (2 exchanges, in order), b", got)
	}
	n, err := d.DeleteConversation(ctx, "a")
	if err != nil || n != 2 {
		t.Fatalf("delete a: %d %v, want 2 exchanges", n, err)
	}
	if has, _ := db.Diary().Has(ctx, "a"); has {
		t.Error("the deleted conversation's diary summary is still there")
	}
	if n, err := d.DeleteConversation(ctx, "a"); n != 0 || err != nil {
		t.Errorf("delete again: %d %v, want 0", n, err)
	}
	convs, _ = d.Conversations(ctx)
	if len(convs) != 2 {
		t.Errorf("%d conversations left, want 2", len(convs))
	}
}

// Deleting conversation "c2" leaves the diary entry of "kitchen/c2", whose
// id merely ends the same way.
func TestDeleteConversationLeavesAnotherEntry(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	base := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i, c := range []string{"c2", "kitchen/c2"} {
		if err := db.Dialogue().Append(ctx, Exchange{At: base.Add(time.Duration(i) * time.Minute), Conversation: c, User: "hi"}); err != nil {
			t.Fatal(err)
		}
		if err := db.Diary().Add(ctx, DiaryEntry{Conversation: c, Date: base.Add(time.Duration(i) * time.Minute), Summary: "greetings"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.Dialogue().DeleteConversation(ctx, "c2"); err != nil || n != 1 {
		t.Fatalf("delete c2: %d %v", n, err)
	}
	if has, _ := db.Diary().Has(ctx, "kitchen/c2"); !has {
		t.Error("deleting c2 deleted kitchen/c2's diary entry")
	}
	if has, _ := db.Diary().Has(ctx, "c2"); has {
		t.Error("c2's diary entry is still there")
	}
}
