package center

import "testing"

// TestNodeSetTimezone: the zone a node tells its center with a question
// is the one set last, so a zone picked on the page applies without a
// restart.
func TestNodeSetTimezone(t *testing.T) {
	client, err := NewClient(ClientOptions{URL: "http://center.lan:8080", Credential: "kitchen:secret", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	n := NewNode(NodeOptions{Client: client, Room: "kitchen", Timezone: "Europe/Lisbon"})
	if got := n.context().Timezone; got != "Europe/Lisbon" {
		t.Errorf("got zone %q at first, want Europe/Lisbon", got)
	}
	n.SetTimezone("Asia/Tokyo")
	if got := n.context(); got.Timezone != "Asia/Tokyo" || got.Room != "kitchen" || got.NodeID != "kitchen" {
		t.Errorf("got %+v after SetTimezone, want kitchen in Asia/Tokyo", got)
	}
}
