package main

import (
	"regexp"
	"strings"
	"testing"

	pb "flip7arena/arena/v1"
)

// hitOrStayRequest is a two-seat base HIT_OR_STAY request for seat 0 holding nums.
func hitOrStayRequest(id uint64, game string, nums ...string) *pb.DecisionRequest {
	obs := &pb.Observation{Variant: "base", Seats: 2, Unseen: deckCounts(base),
		Ruleset: &pb.Ruleset{Variant: "base", TargetScore: 200},
		Players: []*pb.PlayerView{
			{Seat: 0, Status: pb.PlayerStatus_ACTIVE, Numbers: nums},
			{Seat: 1, Status: pb.PlayerStatus_ACTIVE},
		}}
	req := request(obs, pb.DecisionKind_HIT_OR_STAY, "")
	req.RequestId, req.GameId = id, game
	return req
}

func quietClient() *Client {
	return &Client{Logf: func(string, ...interface{}) {}}
}

func TestABatchIsAnsweredInOneMessage(t *testing.T) {
	reqs := []*pb.DecisionRequest{
		hitOrStayRequest(4, "g1", "3"),
		hitOrStayRequest(5, "g2", "12", "11", "10"),
		hitOrStayRequest(6, "g3", "2"),
	}
	msg := quietClient().reply(reqs)
	answers := msg.GetAnswers().GetAnswers()
	if len(answers) != len(reqs) {
		t.Fatalf("want %d answers in one message, got %v", len(reqs), msg)
	}
	want := []pb.Move{pb.Move_HIT, pb.Move_STAY, pb.Move_HIT}
	for i, a := range answers {
		if a.GetRequestId() != reqs[i].GetRequestId() || a.GetError() != "" {
			t.Errorf("answer %d: %v (for request %d)", i, a, reqs[i].GetRequestId())
		}
		if m := reqs[i].GetOptions()[a.GetOptionIndex()].GetMove(); m != want[i] {
			t.Errorf("request %d: %v, want %v", a.GetRequestId(), m, want[i])
		}
	}
}

func TestAPanicIsReportedWithWhereItHappened(t *testing.T) {
	c := quietClient()
	c.Decide = func(req *pb.DecisionRequest) (int, string, error) {
		return decideWith(func(req *pb.DecisionRequest) (int, string) {
			if req.GetGameId() == "bad" {
				var seats []int
				return seats[req.GetSeat()+3], "never"
			}
			return 1, "stay"
		}, req)
	}
	answers := c.reply([]*pb.DecisionRequest{hitOrStayRequest(1, "bad"), hitOrStayRequest(2, "good")}).
		GetAnswers().GetAnswers()
	bad, good := answers[0], answers[1]
	re := regexp.MustCompile(`^panic: runtime error: index out of range \[3\] with length 0 \(client_test\.go:\d+\)$`)
	if bad.GetOptionIndex() != 0 || !re.MatchString(bad.GetError()) {
		t.Errorf("the failed request: %v", bad)
	}
	if good.GetOptionIndex() != 1 || good.GetError() != "" {
		t.Errorf("the other answer of the batch: %v", good)
	}
}

func TestAPanicInsideTheStandardLibraryNamesTheBotsOwnLine(t *testing.T) {
	_, _, err := decideWith(func(req *pb.DecisionRequest) (int, string) {
		return len(strings.Repeat("x", -int(req.GetRequestId()))), "never"
	}, hitOrStayRequest(1, "g"))
	re := regexp.MustCompile(`^panic: strings: negative Repeat count \(client_test\.go:\d+\)$`)
	if err == nil || !re.MatchString(err.Error()) {
		t.Errorf("got %v", err)
	}
}

func TestAnIndexOutsideTheOptionsIsReported(t *testing.T) {
	index, _, err := decideWith(func(*pb.DecisionRequest) (int, string) { return 2, "too far" },
		hitOrStayRequest(3, "g"))
	if index != 0 || err == nil || err.Error() != "the strategy chose 2 of 2 options (too far)" {
		t.Errorf("got %d, %v", index, err)
	}
}
