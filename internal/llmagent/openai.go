package llmagent

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// chatModel is a Chat Completions server through the official SDK.
type chatModel struct {
	client openai.Client
	model  string
	// maxCompletion sends --max-tokens as max_completion_tokens (OpenAI's
	// own API, whose newer models refuse max_tokens) instead of max_tokens
	// (what compatible servers read).
	maxCompletion bool
}

// NewChatCompletions returns the model of a Chat Completions server at
// baseURL (with /v1). key "" sends no Authorization header. The SDK's own
// retries are off: the loop retries, and records every provider error.
func NewChatCompletions(baseURL, key, model string, hc *http.Client) Model {
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithMaxRetries(0)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &chatModel{client: openai.NewClient(opts...), model: model, maxCompletion: baseURL == OpenAIBaseURL}
}

// OpenAIBaseURL is the default --base-url of openai:MODEL.
const OpenAIBaseURL = "https://api.openai.com/v1"

func (m *chatModel) ErrorFlag() bool { return false }

func (m *chatModel) Call(ctx context.Context, req *Request) (*Response, error) {
	p := openai.ChatCompletionNewParams{Model: m.model}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(msg.Content))
		case "user":
			p.Messages = append(p.Messages, openai.UserMessage(msg.Content))
		case "tool":
			p.Messages = append(p.Messages, openai.ToolMessage(msg.Content, msg.ToolCallID))
		case "assistant":
			a := openai.ChatCompletionAssistantMessageParam{}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = openai.String(msg.Content)
			}
			for _, tc := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments}}})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.InputSchema)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	if v := req.Params.Temperature; v != nil {
		p.Temperature = openai.Float(*v)
	}
	if v := req.Params.Seed; v != nil {
		p.Seed = openai.Int(*v)
	}
	if v := req.Params.MaxTokens; v != nil {
		if m.maxCompletion {
			p.MaxCompletionTokens = openai.Int(*v)
		} else {
			p.MaxTokens = openai.Int(*v)
		}
	}
	cc, err := m.client.Chat.Completions.New(ctx, p)
	if err != nil {
		var ae *openai.Error
		if errors.As(err, &ae) {
			return nil, &ProviderError{Status: ae.StatusCode, RetryAfter: retryAfter(ae.Response), Msg: escape.Shorten(escape.LineBreaks(ae.RawJSON()), 300)}
		}
		return nil, err
	}
	if len(cc.Choices) == 0 {
		return nil, errors.New("the answer has no choices (not a chat completion)")
	}
	msg := cc.Choices[0].Message
	r := &Response{Text: msg.Content, InputTokens: cc.Usage.PromptTokens, OutputTokens: cc.Usage.CompletionTokens}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return r, nil
}

// retryAfter reads a Retry-After header in seconds (an HTTP date is
// ignored: the loop's own backoff applies).
func retryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	s, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64)
	if err != nil || s < 0 || s > 86400 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}
