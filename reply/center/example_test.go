package center_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"time"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

// A node answers what its own commands understand at once, offline, and
// asks its center for the rest; the center's engine answers with the
// household's model and memory.
func ExampleNode() {
	srv := ollamatest.New(ollamatest.Model{Name: "llama3.2:3b", Family: "llama", Capabilities: []string{"completion", "tools"}})
	defer srv.Close()
	srv.Respond(replytest.New().Says(replytest.Chat, "Paris is the capital of France.").Respond)
	host, _ := url.Parse(srv.URL)
	model, _ := llm.New(llm.Options{Host: host, Model: "llama3.2:3b"})

	// The center, with the household's store.
	dir, _ := os.MkdirTemp("", "hark-example")
	defer os.RemoveAll(dir)
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	keys := center.NewKeys(db.Settings())
	server, err := center.NewServer(center.Options{
		Keys:        keys,
		ServerTools: func(*time.Location) []*command.Command { return nil },
		Engine: func(c center.Conversation) (*reply.Engine, error) {
			return reply.New(reply.Options{Model: model, Info: model, ModelName: "llama3.2:3b", Commands: c.Commands,
				Conversation: c.ID, Dialogue: center.Dialogue{Store: db.Dialogue(), ID: c.ID}, Diary: db.Diary(), Facts: db.Facts()})
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close(context.Background()) // after the web server, before the store
	web := httptest.NewServer(server.Handler())
	defer web.Close()

	// A node enrolled with the center: hark center nodes add kitchen.
	cred, _ := keys.Add(context.Background(), "kitchen")
	client, err := center.NewClient(center.ClientOptions{URL: web.URL, Credential: cred, Insecure: true})
	if err != nil {
		log.Fatal(err)
	}
	own := command.NewRegistry(command.Options{})
	own.Register(builtin.Calculate())
	node := center.NewNode(center.NodeOptions{Client: client, Commands: own, Room: "kitchen", Timezone: "UTC"})
	defer node.Close()

	for _, q := range []string{"what is 6 times 7", "what is the capital of France"} {
		if _, err := node.Reply(context.Background(), q, func(s string) { fmt.Println("says:", s) }); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("center reached:", node.Link().Up)
	// Output:
	// says: 6 times 7 is 42.
	// says: Paris is the capital of France.
	// center reached: true
}
