package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"
)

// cmdSecrets sets, lists and removes the credentials commands need. Values
// are read from standard input (without echo on a terminal) and are never
// printed or logged.
func cmdSecrets(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("secrets", e, g)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: hark secrets set NAME   (reads the value from standard input)\n       hark secrets list\n       hark secrets unset NAME")
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 || (rest[0] == "set" || rest[0] == "unset") && len(rest) != 2 || rest[0] == "list" && len(rest) != 1 {
		fs.Usage()
		return errUsage
	}
	a, err := openOneShot(e, g)
	if err != nil {
		return err
	}
	defer a.close()
	secrets := a.db.Secrets(a.cfg.Commands.SecretsKey)
	switch rest[0] {
	case "set":
		value, err := readSecret(e, rest[1])
		if err != nil {
			return err
		}
		if err := secrets.Set(ctx, rest[1], value); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s set\n", rest[1])
	case "unset":
		if err := secrets.Unset(ctx, rest[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s removed\n", rest[1])
	case "list":
		names, err := secrets.Names(ctx)
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
		fs.Usage()
		return errUsage
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
