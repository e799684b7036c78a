//go:build llmbench

package reply

import "context"

// What the bench reads of the engine that earlier versions did not have;
// kept apart so that the bench runs against them too, for the figures
// before a change.

func benchOptions(o Options, server string) Options { o.Server = server; return o }

func standIns(r Result) []string { return r.StandIns }

// warm is what the daemon does at start.
func warm(ctx context.Context, e *Engine) { e.Warm(ctx) }

func toolTokens(r Result) int { return r.Timings.ToolTokens }
