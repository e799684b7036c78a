package reply

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/mcp"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/schedule"
)

// BenchmarkMCPToolSchema reports what MCP servers cost a model turn: the
// tool schemas of the whole catalogue against those the chat call is
// offered, with 0, 1 and 3 servers connected (each the real
// server-everything from npm, 13 tools). The router's picks and the tool
// budget bound the chat call's tools; the router's own prompt lists every
// tool in a line, and grows with the catalogue.
func BenchmarkMCPToolSchema(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed: no MCP server to connect")
	}
	script, _ := filepath.Abs("../build/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(script); err != nil {
		b.Skipf("server-everything is not installed at %s (.ci/deps installs it)", script)
	}
	for _, n := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			f := newFixture(b, smallModel, Options{Now: advancing(), PlannerOff: true, Commands: command.NewRegistry(command.Options{})})
			reg := f.eng.o.Commands
			sched, _ := schedule.New(schedule.Options{Store: f.db.Schedule(), Location: berlin})
			if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: f.db.SealedFacts(f.db.Secrets("")), Status: noStatus{}})...); err != nil {
				b.Fatal(err)
			}
			var servers []mcp.Server
			for i := range n {
				servers = append(servers, mcp.Server{Name: fmt.Sprintf("everything%d", i+1), Command: []string{node, script, "stdio"}})
			}
			hub, err := mcp.New(mcp.Options{Servers: servers, Catalogue: reg})
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); hub.Wait() }()
			hub.Start(ctx)
			hub.Ready(ctx)
			catalogue := 0
			for _, c := range reg.Commands() {
				catalogue += len(c.ToolJSON())
			}
			f.model.Default(kindPlanner, ollamatest.Reply{Content: `{"steps": ["reply"]}`})
			// the router asks for more than it may: the cap holds
			f.model.Default(kindRouter, ollamatest.Reply{Content: `{"tools": ["echo", "everything2_echo", "everything3_echo", "get_sum", "get_tiny_image", "set_timer"]}`})
			f.model.Default(kindChat, ollamatest.Reply{Content: "Good morning."})
			var res Result
			for b.Loop() {
				var err error
				if res, _, err = f.ask(b, "echo the words good morning back to me"); err != nil {
					b.Fatal(err)
				}
			}
			router, chatTools := 0, 0
			for _, r := range f.srv.Chats()[len(f.srv.Chats())-2:] {
				switch kindOf(r) {
				case kindRouter:
					router = len(r.Messages[0].Content)
				case kindChat:
					raw, _ := json.Marshal(r.Tools)
					chatTools = len(raw)
				}
			}
			b.ReportMetric(float64(len(reg.Commands())), "catalogue-tools")
			b.ReportMetric(float64(catalogue), "catalogue-chars")
			b.ReportMetric(float64(chatTools), "chat-tool-chars")
			b.ReportMetric(float64(res.Timings.ToolTokens), "chat-tool-tokens")
			b.ReportMetric(float64(router), "router-prompt-chars")
			b.ReportMetric(float64(res.Timings.PromptChars), "turn-prompt-chars")
		})
	}
}
