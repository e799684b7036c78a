package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

type pantryIn struct {
	Item string `json:"item" jsonschema:"what to look for"`
}

// serveMCP is an MCP server on stdio with one tool, made with the SDK.
func serveMCP() {
	s := sdk.NewServer(&sdk.Implementation{Name: "pantry", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "pantry-count", Description: "How many of an item are in the pantry."},
		func(_ context.Context, _ *sdk.CallToolRequest, in pantryIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("There are 3 tins of %s.", in.Item)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// mcpConfig is a configuration with this test binary as an MCP server and
// one server that cannot start.
func mcpConfig(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "hark.toml")
	// A loaded machine may take longer than the default 1.2 s to start
	// this test binary as the server.
	text := fmt.Sprintf(`[mcp]
first_try = "20s"

[[mcp.server]]
name = "pantry"
command = [%q]
env = ["HARK_MCP_SERVE=1"]
deny = ["pantry_cont"]

[[mcp.server]]
name = "gone"
command = ["/nonexistent/mcp-server"]
`, exe)
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestMCPList(t *testing.T) {
	cfg := mcpConfig(t)
	code, out, errOut := ask(t, vars(map[string]string{"HOME": t.TempDir()}), "mcp", "list", "--config", cfg, "--data", t.TempDir())
	if code != 0 {
		t.Fatalf("hark mcp list: %d %q", code, errOut)
	}
	for _, want := range []string{"pantry  stdio", "up", "pantry_count (pantry-count)", "gone", "down", "/nonexistent/mcp-server",
		`warning: deny names "pantry_cont", which is not one of the server's tools`} {
		if !strings.Contains(out, want) {
			t.Errorf("hark mcp list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = ask(t, vars(map[string]string{"HOME": t.TempDir()}), "mcp", "--data", t.TempDir())
	if code != 0 || !strings.Contains(out, "no MCP servers configured") {
		t.Errorf("without servers: %d %q", code, out)
	}
}

// TestAskUsesAnMCPTool: the model sees the server's tool and its result,
// fenced, and answers from it.
func TestAskUsesAnMCPTool(t *testing.T) {
	srv, m := modelServer(t)
	m.Says(replytest.Planner, `{"steps": ["pantry_count: beans", "reply"]}`).Says(replytest.Router, `{"tools": ["pantry_count"]}`)
	m.On(replytest.Chat,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "pantry_count", Arguments: map[string]any{"item": "beans"}}}},
		ollamatest.Reply{Content: "You have three tins of beans."},
	)
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()}),
		"ask", "--verbose", "--config", mcpConfig(t), "--data", t.TempDir(), "count the tins of beans in the pantry")
	if code != 0 || out != "You have three tins of beans.\n" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if testing.Verbose() {
		t.Log(errOut)
	}
	chats := chats(srv)
	if len(chats) != 2 {
		t.Fatalf("%d chat calls", len(chats))
	}
	var offered []string
	for _, tool := range chats[0].Tools {
		offered = append(offered, tool.Function.Name)
	}
	if !strings.Contains(strings.Join(offered, ","), "pantry_count") {
		t.Errorf("tools offered %v", offered)
	}
	last := chats[1].Messages[len(chats[1].Messages)-1]
	if !strings.Contains(last.Content, "There are 3 tins of beans.") || !strings.Contains(last.Content, "UNTRUSTED TEXT FROM the pantry server") {
		t.Errorf("the tool result the model read: %q", last.Content)
	}
}
