package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as the stdio servers the tests start: with
// HARK_MCP_SERVE set it serves instead of testing.
func TestMain(m *testing.M) {
	if d, err := time.ParseDuration(os.Getenv("HARK_MCP_DELAY")); err == nil {
		time.Sleep(d) // a server slow to start
	}
	switch os.Getenv("HARK_MCP_SERVE") {
	case "":
		os.Exit(m.Run())
	case "sdk", "house":
		srv := testServer()
		if os.Getenv("HARK_MCP_SERVE") == "house" {
			srv = houseServer()
		}
		if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "malformed", "wedge":
		serveMalformed(os.Getenv("HARK_MCP_SERVE") == "wedge")
		os.Exit(0)
	case "crash":
		fmt.Fprintln(os.Stderr, "starting the notes server")
		fmt.Fprintln(os.Stderr, "fatal: /srv/notes.json is missing")
		os.Exit(7)
	case "stall":
		io.Copy(io.Discard, os.Stdin) // reads, never answers
		os.Exit(0)
	}
}

// selfServer is the stdio server of this test binary, as configured.
// Under qemu without binfmt the binary cannot start as a child: the test
// skips, saying so.
func selfServer(t testing.TB, name, kind string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	canRerun.once.Do(func() {
		// Under qemu-user, starting a child can fail, or hang in the
		// emulated fork: the probe gets 15 s.
		done := make(chan error, 1)
		go func() { done <- exec.Command(exe, "-test.run=^$").Run() }()
		select {
		case canRerun.err = <-done:
		case <-time.After(15 * time.Second):
			canRerun.err = errors.New("starting it again did not return within 15 s (exec format error or a hung emulated fork)")
		}
	})
	if err := canRerun.err; err != nil && (strings.Contains(err.Error(), "exec format error") || strings.Contains(err.Error(), "hung emulated fork")) {
		t.Skipf("cannot run this test binary again as a child under emulation: %v", err)
	}
	return Server{Name: name, Command: []string{exe, "-test.run=^$"}, Env: []string{"HARK_MCP_SERVE=" + kind}}
}

var canRerun struct {
	once sync.Once
	err  error
}

type sumIn struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

type echoIn struct {
	Message string `json:"message" jsonschema:"what to say back"`
	Loud    bool   `json:"loudVoice,omitempty"`
}

type noIn struct{}

// testServer is an MCP server made with the SDK: a sum, an echo, a tool
// that hangs, one that fails, one that ignores its instructions' fence,
// and one that kills its process.
func testServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "hark-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "get-sum", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in sumIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("The sum is %g.", in.A+in.B)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Says the message back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			msg := in.Message
			if in.Loud {
				msg = strings.ToUpper(msg)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ noIn) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always reports a problem."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the garage door sensor is offline")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "die", Description: "Ends the server's process."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			os.Exit(3)
			return nil, nil, nil
		})
	return s
}

// bearerOnly serves h only to requests with the token.
func bearerOnly(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// houseServer is an MCP server with instructions and the tools a model
// finds hard: a nested parameter schema, a destructive tool, a tool named
// like kit's (a collision), a tool that reads its environment.
func houseServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "hark-house", Version: "1"},
		&sdk.ServerOptions{Instructions: "This server keeps the household's notebook: the people, pets and rooms of the house and what is known about them."})
	sdk.AddTool(s, &sdk.Tool{Name: "create-entities", Description: "Create several entities in the notebook at once. Each entity has a name, a kind and observations. Entities that exist already are left as they are, which the result reports."},
		func(_ context.Context, _ *sdk.CallToolRequest, in entitiesIn) (*sdk.CallToolResult, any, error) {
			var names []string
			for _, e := range in.Entities {
				names = append(names, e.Name+" ("+e.EntityType+")")
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "created " + strings.Join(names, ", ")}}}, nil, nil
		})
	destructive := true
	sdk.AddTool(s, &sdk.Tool{Name: "delete-all", Description: "Empties the notebook.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive}},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "the notebook is empty"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "read-notes", Description: "Reads the notebook.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Rex is a dog."}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "get-sum", Description: "Adds two numbers, the house's way."},
		func(_ context.Context, _ *sdk.CallToolRequest, in sumIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("house sum %g", in.A+in.B)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "get-env", Description: "Reads one of the server's environment variables."},
		func(_ context.Context, _ *sdk.CallToolRequest, in envIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Name + "=" + os.Getenv(in.Name) + "."}}}, nil, nil
		})
	return s
}

type entity struct {
	Name         string   `json:"name" jsonschema:"the entity's name"`
	EntityType   string   `json:"entityType" jsonschema:"person, pet or room"`
	Observations []string `json:"observations,omitempty" jsonschema:"what is known about it"`
}

type entitiesIn struct {
	Entities []entity `json:"entities" jsonschema:"the entities to create"`
}

type envIn struct {
	Name string `json:"name"`
}

// serveMalformed speaks the protocol's framing on stdio with a tool whose
// answers are broken: a result that is not a tool result. Wedged, the
// server stops answering anything once a tool is called.
func serveMalformed(wedge bool) {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string `json:"name"`
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": req.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "broken", "version": "0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{
				map[string]any{"name": "garbled", "description": "Answers nonsense.", "inputSchema": map[string]any{"type": "object"}},
				map[string]any{"name": "fine", "description": "Answers properly.", "inputSchema": map[string]any{"type": "object"}},
			}}
		case "tools/call":
			if wedge {
				time.Sleep(time.Hour) // hangs, reading nothing more
			}
			if req.Params.Name == "garbled" {
				result = map[string]any{"content": "this should be a list", "isError": "perhaps"}
			} else {
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "all good"}}}
			}
		case "ping":
			result = map[string]any{}
		default:
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			continue
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}
