package reply_test

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"os"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

// An engine answers a question with its commands when they understand it
// (no model call), and through the model otherwise; say gets each sentence
// as soon as it is ready, to be spoken while the rest is written.
func ExampleEngine() {
	srv := ollamatest.New(ollamatest.Model{Name: "llama3.2:3b", Family: "llama", Capabilities: []string{"completion", "tools"}})
	defer srv.Close()
	srv.Respond(replytest.New().Says(replytest.Chat, "Paris is the capital of France.").Respond)

	dir, _ := os.MkdirTemp("", "hark-example")
	defer os.RemoveAll(dir)
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	host, _ := url.Parse(srv.URL)
	model, _ := llm.New(llm.Options{Host: host, Model: "llama3.2:3b"})
	commands := command.NewRegistry(command.Options{})
	commands.Register(builtin.Calculate())
	engine, err := reply.New(reply.Options{Model: model, Info: model, ModelName: "llama3.2:3b", Commands: commands,
		Dialogue: db.Dialogue(), Diary: db.Diary(), Facts: db.Facts()})
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close()

	for _, q := range []string{"what is 12 times 4", "what is the capital of France"} {
		res, err := engine.Reply(context.Background(), reply.Query{Text: q}, func(sentence string) { fmt.Println("says:", sentence) })
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("offline:", res.Offline, "tools:", len(res.Tools))
	}
	// Output:
	// says: 12 times 4 is 48.
	// offline: true tools: 1
	// says: Paris is the capital of France.
	// offline: false tools: 0
}
