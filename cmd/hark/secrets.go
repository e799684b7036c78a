package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/term"
)

// cmdSecrets sets, lists and removes the credentials commands need. Values
// are read from standard input (without echo on a terminal) and are never
// printed or logged.
func cmdSecrets(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("secrets", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 || (rest[0] == "set" || rest[0] == "unset") && len(rest) != 2 || rest[0] == "list" && len(rest) != 1 {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	switch rest[0] {
	case "set":
		value, err := readSecret(e, rest[1])
		if err != nil {
			return err
		}
		if err := c.SetSecret(ctx, rest[1], value); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s set\n", rest[1])
	case "unset":
		if err := c.UnsetSecret(ctx, rest[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s removed\n", rest[1])
	case "list":
		names, err := c.SecretNames(ctx)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			fmt.Fprintln(e.stdout, "no secrets set")
		}
		for _, n := range names {
			fmt.Fprintln(e.stdout, n)
		}
	default:
		return usageError(e, fs, "")
	}
	return nil
}

func readSecret(e env, name string) (string, error) {
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(e.stderr, "value for %s (not shown): ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "" {
		if err != nil {
			return "", fmt.Errorf("no value for %s on standard input", name)
		}
		return "", errors.New("empty value; use `hark secrets unset` to remove a secret")
	}
	return line, nil
}
