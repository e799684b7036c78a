package center

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply/command"
)

// roundTrip is a RoundTripper from a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNodeCloseEndsItsLookAtTheCenter: a node that found its center down
// looks, in the background, until the center answers; Close ends that
// look and waits for it, so nothing of the node pings the center after
// Close, however long the center stays down. (A look that outlived Close
// would also fail the bubble: it ends with a goroutine still asleep in it.)
func TestNodeCloseEndsItsLookAtTheCenter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var pings atomic.Int32
		cl, err := NewClient(ClientOptions{URL: "http://center.home.arpa:8765", Credential: "den:key", Insecure: true})
		if err != nil {
			t.Fatal(err)
		}
		cl.hc.Transport = roundTrip(func(r *http.Request) (*http.Response, error) {
			pings.Add(1)
			return nil, errors.New("connect: connection refused")
		})
		n := NewNode(NodeOptions{Client: cl, Commands: command.NewRegistry(command.Options{})})
		n.down(errors.New("center: unreachable"))
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if pings.Load() == 0 {
			t.Fatal("the node did not look at the down center in the background")
		}
		n.Close()
		closed := pings.Load()
		time.Sleep(time.Hour)
		synctest.Wait()
		if after := pings.Load() - closed; after != 0 {
			t.Errorf("the node pinged the center %d times in the hour after Close; want none", after)
		}
		if n.Link().Up {
			t.Errorf("link %+v after Close; want it still down: the center never answered", n.Link())
		}
	})
}
