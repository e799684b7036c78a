package benchmodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Llama 3's special tokens that the metadata and the chat template use.
const (
	BeginOfText  = 128000 // <|begin_of_text|>
	EndOfText    = 128001 // <|end_of_text|>
	FinetunePad  = 128004 // <|finetune_right_pad_id|>
	StartHeader  = 128006 // <|start_header_id|>
	EndHeader    = 128007 // <|end_header_id|>
	EndOfMessage = 128008 // <|eom_id|>
	EndOfTurn    = 128009 // <|eot_id|>
	PythonTag    = 128010 // <|python_tag|>
)

// VocabSize is the number of tokens of Llama 3's vocabulary: 128000
// byte-pair tokens and 256 special ones.
const VocabSize = 128256

// Token types, as GGUF's tokenizer.ggml.token_type has them.
const (
	tokenNormal  = 1
	tokenControl = 3
)

// Vocab is a byte-pair tokenizer as GGUF stores it: the tokens by id, each
// one's type, and the merges in rank order.
type Vocab struct {
	Tokens []string
	Types  []int32
	Merges []string
}

// specials is Llama 3's 256 special tokens, ids 128000 to 128255.
func specials() []string {
	s := []string{
		"<|begin_of_text|>", "<|end_of_text|>",
		"<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
		"<|finetune_right_pad_id|>", "<|reserved_special_token_2|>",
		"<|start_header_id|>", "<|end_header_id|>",
		"<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
	}
	for i := 3; len(s) < VocabSize-BeginOfText; i++ {
		s = append(s, fmt.Sprintf("<|reserved_special_token_%d|>", i))
	}
	return s
}

// LoadVocab reads Llama 3.2's tokenizer from dir, which holds encoder.json
// (the 128000 byte-pair tokens by id) and vocab.bpe (the merges, one a
// line, after an optional "#version" header), and adds the special tokens.
// Lines that start with # but not #version are merges such as "# #": Ollama's
// tokenizer test skips them, but Llama 3.2 has all 280147.
// Ollama's module has both in tokenizer/testdata/llama3.2 (see FindVocab).
func LoadVocab(dir string) (*Vocab, error) {
	data, err := os.ReadFile(filepath.Join(dir, "encoder.json"))
	if err != nil {
		return nil, fmt.Errorf("benchmodel: %w", err)
	}
	var ids map[string]int32
	if err := json.Unmarshal(data, &ids); err != nil {
		return nil, fmt.Errorf("benchmodel: %s: %w", filepath.Join(dir, "encoder.json"), err)
	}
	if len(ids) != BeginOfText {
		return nil, fmt.Errorf("benchmodel: %s has %d tokens, want %d", filepath.Join(dir, "encoder.json"), len(ids), BeginOfText)
	}
	v := &Vocab{Tokens: make([]string, VocabSize), Types: make([]int32, VocabSize)}
	for tok, id := range ids {
		if id < 0 || id >= BeginOfText || v.Types[id] != 0 {
			return nil, fmt.Errorf("benchmodel: %s: token %q has id %d, out of range or taken", filepath.Join(dir, "encoder.json"), tok, id)
		}
		v.Tokens[id], v.Types[id] = tok, tokenNormal
	}
	for i, tok := range specials() {
		v.Tokens[BeginOfText+i], v.Types[BeginOfText+i] = tok, tokenControl
	}

	data, err = os.ReadFile(filepath.Join(dir, "vocab.bpe"))
	if err != nil {
		return nil, fmt.Errorf("benchmodel: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#version") {
			v.Merges = append(v.Merges, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("benchmodel: %s: %w", filepath.Join(dir, "vocab.bpe"), err)
	}
	return v, nil
}

// FindVocab returns the directory of Llama 3.2's tokenizer in the Go
// module cache's copy of Ollama's module, the version this module requires:
// it runs `go list -m` in the current directory, which must be inside this
// module.
func FindVocab(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/ollama/ollama").Output()
	if err != nil {
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return "", fmt.Errorf("benchmodel: find ollama's module: go list: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" {
		return "", fmt.Errorf("benchmodel: ollama's module is not in the module cache: run go mod download github.com/ollama/ollama")
	}
	return filepath.Join(mod, "tokenizer", "testdata", "llama3.2"), nil
}
