// Command flip7-bot is the Go example bot for Flip 7 Arena.
//
// The arena starts it with ARENA_ADDRESS ("unix:///path/arena.sock" or "host:port") and
// ARENA_TOKEN in the environment. It opens one Arena.Play stream, plays every game the arena
// gives it at once, reconnects with the same token if the stream breaks, and exits 0 when
// the arena says goodbye (1 when refused or when the arena stays unreachable).
//
// Environment (optional): FLIP7_BOT_NAME (display name), ARENA_LOG=debug (log every
// decision to stderr), ARENA_RECONNECT_SECONDS (default 10), ARENA_BATCHES=0 (one request
// per message instead of batches).
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

const botVersion = "flip7-go-example 1.0 (go, grpc-go)"

func main() {
	address := os.Getenv("ARENA_ADDRESS")
	token, haveToken := os.LookupEnv("ARENA_TOKEN")
	if address == "" || !haveToken {
		fmt.Fprintln(os.Stderr, "ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them for its bots)")
		os.Exit(2)
	}
	name := os.Getenv("FLIP7_BOT_NAME")
	if name == "" {
		name = "go-example"
	}
	reconnect := 10 * time.Second
	if s := os.Getenv("ARENA_RECONNECT_SECONDS"); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 {
			reconnect = time.Duration(f * float64(time.Second))
		}
	}
	logf := func(format string, args ...interface{}) {
		fmt.Fprintf(os.Stderr, "flip7-bot: "+format+"\n", args...)
	}
	c := &Client{
		Address:      address,
		Token:        token,
		Name:         name,
		Version:      botVersion,
		ReconnectFor: reconnect,
		Logf:         logf,
		Debug:        strings.EqualFold(os.Getenv("ARENA_LOG"), "debug"),
		Batches:      os.Getenv("ARENA_BATCHES") != "0",
	}
	reason, err := c.Run()
	if err != nil {
		logf("%v", err)
		os.Exit(1)
	}
	logf("goodbye: %s (%d answers)", reason, c.answers)
}
