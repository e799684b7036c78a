package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNestedSchemaReachesTheModel: a tool whose parameter is a list of
// objects (an MCP server's create_entities) keeps its items, their
// properties, enums and required lists through Ollama's tool types; an
// object parameter's required list, which those types drop, is in its
// description.
func TestNestedSchemaReachesTheModel(t *testing.T) {
	params := json.RawMessage(`{"type":"object","required":["entities","where"],"properties":{
		"entities":{"type":"array","items":{"type":"object","required":["name","entityType"],"properties":{
			"name":{"type":"string"},"entityType":{"type":"string","enum":["person","pet"]},
			"observations":{"type":"array","items":{"type":"string"}}}}},
		"where":{"type":"object","required":["room"],"properties":{"room":{"type":"string"},"floor":{"type":"integer"}}}}}`)
	tools, err := apiTools([]Tool{{Name: "create_entities", Description: "Create entities.", Parameters: params}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tools)
	got := string(b)
	for _, want := range []string{`"items":{"properties":{"entityType":{"enum":["person","pet"],"type":"string"}`, `"required":["name","entityType"]`,
		`"observations":{"items":{"type":"string"},"type":"array"}`, `"required":["entities","where"]`, `"room":{"type":"string"}`, `required: room`} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's tool lacks %s:\n%s", want, got)
		}
	}
}
