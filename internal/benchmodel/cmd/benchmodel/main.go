// Command benchmodel writes a GGUF model with random weights in the shape
// of Llama 3.2 1B Instruct and with its real tokenizer, for benchmarks
// against a real Ollama server (see the bench-model make target).
//
//	go run ./internal/benchmodel/cmd/benchmodel [-o file.gguf] [-shape llama3.2-1b|tiny] [-seed N]
//
// Run it inside this module: it finds the tokenizer in the module cache's
// copy of Ollama's module, unless -vocab names the directory.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/harkbox/hark/internal/benchmodel"
)

var shapes = map[string]benchmodel.Shape{
	"llama3.2-1b": benchmodel.Llama32_1B,
	"tiny":        benchmodel.Tiny,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("benchmodel", flag.ContinueOnError)
	out := fl.String("o", "build/llm/llama3.2-1b-shape.gguf", "the GGUF file to write")
	shapeName := fl.String("shape", "llama3.2-1b", "the model's shape: llama3.2-1b or tiny")
	seed := fl.Uint64("seed", 1, "the random weights' seed: the same seed writes the same file")
	vocabDir := fl.String("vocab", "", "the directory of Llama 3.2's encoder.json and vocab.bpe (default: ollama's module's tokenizer/testdata/llama3.2)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("benchmodel: unexpected arguments %q", fl.Args())
	}
	shape, ok := shapes[*shapeName]
	if !ok {
		return fmt.Errorf("benchmodel: unknown shape %q: want llama3.2-1b or tiny", *shapeName)
	}
	if *vocabDir == "" {
		dir, err := benchmodel.FindVocab(ctx)
		if err != nil {
			return err
		}
		*vocabDir = dir
	}
	vocab, err := benchmodel.LoadVocab(*vocabDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return fmt.Errorf("benchmodel: %w", err)
	}
	start := time.Now()
	if err := benchmodel.Write(ctx, *out, shape, vocab, *seed); err != nil {
		return err
	}
	fi, err := os.Stat(*out)
	if err != nil {
		return fmt.Errorf("benchmodel: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %s, %d bytes, in %s\n", *out, shape.Name, fi.Size(), time.Since(start).Round(100*time.Millisecond))
	return nil
}
