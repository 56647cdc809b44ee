package main

// The connection: one bidirectional stream (Arena.Play) that carries every game at once,
// reconnected with the same token when it breaks. With batches (the default) the arena sends
// every request that is ready in one ArenaMessage{batch}; the bot decides them concurrently
// and answers them all in one BotMessage{answers}.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	pb "flip7arena/arena/v1"

	"google.golang.org/grpc"
)

const protocolVersion = 1

// errRejected: the arena refused the bot (bad token, version, ...). Never retried.
type errRejected struct{ why string }

func (e *errRejected) Error() string { return "the arena refused this bot: " + e.why }

// errRetry: the stream ended without a goodbye, or the arena said ALREADY_CONNECTED.
type errRetry struct{ why string }

func (e *errRetry) Error() string { return e.why }

type gameInfo struct {
	start *pb.GameStart
}

// Client is one bot's connection to the arena.
type Client struct {
	Address      string
	Token        string
	Name         string
	Version      string
	ReconnectFor time.Duration // how long to keep trying after the stream is lost
	Logf         func(format string, args ...interface{})
	Debug        bool
	Batches      bool // ask for every ready request in one message
	// Decide is the strategy (nil: the package's Decide).
	Decide func(*pb.DecisionRequest) (index int, why string, err error)

	games    map[string]*gameInfo
	welcomed bool
	answers  int
}

// Run plays until the arena says goodbye and returns its reason.
func (c *Client) Run() (string, error) {
	if c.games == nil {
		c.games = make(map[string]*gameInfo)
	}
	const firstDelay = 50 * time.Millisecond
	delay := firstDelay
	var giveUpAt time.Time
	for {
		reason, err := c.session()
		if err == nil {
			return reason, nil
		}
		var rej *errRejected
		if errors.As(err, &rej) {
			return "", err
		}
		now := time.Now()
		if c.welcomed { // that session worked: a fresh reconnect window
			giveUpAt = time.Time{}
			delay = firstDelay
		}
		if giveUpAt.IsZero() {
			giveUpAt = now.Add(c.ReconnectFor)
		}
		if !now.Before(giveUpAt) {
			return "", fmt.Errorf("lost the arena at %s: %v", c.Address, err)
		}
		c.Logf("stream lost (%v); reconnecting in %v", err, delay)
		time.Sleep(delay)
		if delay *= 2; delay > time.Second {
			delay = time.Second
		}
	}
}

// dial connects to ARENA_ADDRESS. Unix sockets ("unix:///abs/path", "unix:rel/path") go
// through our own dialer, so the target form does not depend on the grpc-go version
// (grpc-go 1.33 has no "unix" resolver; it only copes with that form by a fallback);
// anything else ("127.0.0.1:50051", "dns:///host:port") is handed to grpc-go as is.
func dial(ctx context.Context, address string) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithInsecure(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64 << 20)),
	}
	if path, ok := unixPath(address); ok {
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}))
		return grpc.DialContext(ctx, "passthrough:///localhost", opts...)
	}
	return grpc.DialContext(ctx, strings.TrimPrefix(address, "tcp://"), opts...)
}

// unixPath extracts the socket path of a "unix:" address.
func unixPath(address string) (string, bool) {
	switch {
	case strings.HasPrefix(address, "unix://"):
		rest := address[len("unix://"):]
		if strings.HasPrefix(rest, "/") {
			return rest, true // unix:///abs/path
		}
		if i := strings.Index(rest, "/"); i >= 0 {
			return rest[i:], true // unix://authority/abs/path
		}
		return rest, true
	case strings.HasPrefix(address, "unix:"):
		return address[len("unix:"):], true
	}
	return "", false
}

// session runs one stream: hello, then messages until goodbye, an error or a broken stream.
func (c *Client) session() (string, error) {
	c.welcomed = false
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := dial(ctx, c.Address)
	if err != nil {
		return "", &errRetry{fmt.Sprintf("dial: %v", err)}
	}
	defer conn.Close()
	stream, err := pb.NewArenaClient(conn).Play(ctx)
	if err != nil {
		return "", &errRetry{fmt.Sprintf("open stream: %v", err)}
	}
	hello := &pb.BotMessage{Msg: &pb.BotMessage_Hello{Hello: &pb.Hello{
		Token:              c.Token,
		BotName:            c.Name,
		ProtocolVersion:    protocolVersion,
		MaxConcurrentGames: 0, // as many as the arena likes
		BotVersion:         c.Version,
		Batches:            c.Batches,
	}}}
	if err := stream.Send(hello); err != nil {
		// the reason, if any, comes with Recv
		if _, rerr := stream.Recv(); rerr != nil && rerr != io.EOF {
			return "", &errRetry{fmt.Sprintf("hello: %v", rerr)}
		}
		return "", &errRetry{fmt.Sprintf("hello: %v", err)}
	}
	// Decisions are computed concurrently (one goroutine each: games do not wait for each
	// other) and sent by one sender goroutine; this goroutine only receives.
	out := make(chan *pb.BotMessage, 256)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-out:
				if err := stream.Send(m); err != nil {
					// the stream is broken: Recv reports why, and the arena sends the
					// pending requests again after the reconnect
					return
				}
			}
		}
	}()
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return "", &errRetry{"the stream ended without a goodbye"}
		}
		if err != nil {
			return "", &errRetry{err.Error()}
		}
		switch m := msg.GetMsg().(type) {
		case *pb.ArenaMessage_Batch:
			c.answers += len(m.Batch.GetRequests())
			go c.send(ctx, c.reply(m.Batch.GetRequests()), out)
		case *pb.ArenaMessage_Request:
			c.answers++
			go c.send(ctx, &pb.BotMessage{Msg: &pb.BotMessage_Answer{Answer: c.answer(m.Request)}}, out)
		case *pb.ArenaMessage_GameStart:
			c.games[m.GameStart.GetGameId()] = &gameInfo{start: m.GameStart}
		case *pb.ArenaMessage_GameEnd:
			delete(c.games, m.GameEnd.GetGameId())
		case *pb.ArenaMessage_Welcome:
			c.welcomed = true
			w := m.Welcome
			c.Logf("welcome: %s (session %s, arena %s, reconnect grace %d ms, batches %v)", w.GetBotName(),
				w.GetSessionId(), w.GetArenaVersion(), w.GetReconnectGraceMs(), w.GetBatches())
		case *pb.ArenaMessage_Error:
			e := m.Error
			why := fmt.Sprintf("%s: %s", e.GetCode(), e.GetMessage())
			if e.GetCode() == pb.Error_ALREADY_CONNECTED {
				// our previous stream is not yet noticed as gone: retry
				return "", &errRetry{why}
			}
			return "", &errRejected{why}
		case *pb.ArenaMessage_Goodbye:
			return m.Goodbye.GetReason(), nil
		}
	}
}

// reply answers every request of a batch in one message, in the batch's order; the requests
// are decided concurrently, so no game waits for another.
func (c *Client) reply(reqs []*pb.DecisionRequest) *pb.BotMessage {
	answers := make([]*pb.Answer, len(reqs))
	if len(reqs) == 1 {
		answers[0] = c.answer(reqs[0])
	} else {
		var wg sync.WaitGroup
		for i, req := range reqs {
			wg.Add(1)
			go func(i int, req *pb.DecisionRequest) {
				defer wg.Done()
				answers[i] = c.answer(req)
			}(i, req)
		}
		wg.Wait()
	}
	return &pb.BotMessage{Msg: &pb.BotMessage_Answers{Answers: &pb.Answers{Answers: answers}}}
}

// answer decides one request. When the strategy fails, the answer says so in its error
// (the arena records the bot's own fault, BOT_ERROR, and plays the safe default).
func (c *Client) answer(req *pb.DecisionRequest) *pb.Answer {
	decide := c.Decide
	if decide == nil {
		decide = Decide
	}
	start := time.Now()
	index, why, err := decide(req)
	if c.Debug {
		took := time.Since(start)
		for _, msg := range checkScores(req.GetObservation()) {
			c.Logf("game %s: score model differs: %s", req.GetGameId(), msg)
		}
		c.Logf("game %s seat %d %s card=%q: %d (%s) in %v", req.GetGameId(), req.GetSeat(),
			req.GetKind(), req.GetCard(), index, why, took)
	}
	ans := &pb.Answer{RequestId: req.GetRequestId(), OptionIndex: uint32(index)}
	if err != nil {
		ans.Error = err.Error()
		c.Logf("game %s request %d (%s): %v; reported to the arena", req.GetGameId(),
			req.GetRequestId(), req.GetKind(), err)
	}
	return ans
}

// send queues a message for the sender goroutine.
func (c *Client) send(ctx context.Context, m *pb.BotMessage, out chan<- *pb.BotMessage) {
	select {
	case out <- m:
	case <-ctx.Done(): // the session is over; a new one gets the requests again
	}
}
