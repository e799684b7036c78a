package mdns

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// TestMixedQuestionsAnsweredEachAsAsked: a query whose one question asks
// for a unicast answer (QU) and whose other asks for a multicast one (QM)
// has each answered as it asked (RFC 6762 5.4): the QU question's records,
// multicast lately, to the asker alone; the QM question's to the group.
func TestMixedQuestionsAnsweredEachAsAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		s := sniff(t, h, "192.168.1.97")
		boxOn(t, h, "192.168.1.58", 0, nil)
		time.Sleep(claiming)
		synctest.Wait()
		time.Sleep(2 * time.Second)
		q := question("hark.local.", dnsmessage.TypeA)
		q.Questions[0].Class |= 0x8000 // QU
		q.Questions = append(q.Questions, dnsmessage.Question{Name: dnsmessage.MustNewName("_https._tcp.local."), Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET})
		before := len(s.heardFrom("192.168.1.58"))
		got := ask(t, h, "192.168.1.99", q, time.Second, func(rr dnsmessage.Resource) (string, bool) {
			return rr.Header.Name.String() + " " + rr.Header.Type.String(), true
		})
		var multicast []string
		for _, m := range s.heardFrom("192.168.1.58")[before:] {
			multicast = append(multicast, kinds(m.Answers)...)
		}
		slices.Sort(got)
		if want := []string{"_https._tcp.local. TypePTR", "hark.local. TypeA"}; !slices.Equal(got, want) {
			t.Errorf("the asker heard %q, want %q", got, want)
		}
		if want := []string{"_https._tcp.local. TypePTR"}; !slices.Equal(multicast, want) {
			t.Errorf("multicast %q, want the QM question's answer alone, %q", multicast, want)
		}
	})
}

// heardFrom is every response the sniffer heard from from.
func (s *sniffer) heardFrom(from string) []dnsmessage.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []dnsmessage.Message
	for _, h := range s.seen {
		if h.from == from && h.msg.Response {
			out = append(out, h.msg)
		}
	}
	return out
}
