package llmagent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/cuonztech/agent-harness/internal/escape"
)

// AnthropicBaseURL is the default --base-url of anthropic:MODEL (the API
// root, without /v1, as the SDK expects).
const AnthropicBaseURL = "https://api.anthropic.com"

// DefaultAnthropicMaxTokens is sent as max_tokens when --max-tokens is not
// given: the Messages API requires it.
const DefaultAnthropicMaxTokens = 4096

// messagesModel is a Messages server through the official SDK.
type messagesModel struct {
	client anthropic.Client
	model  string
}

// NewMessages returns the model of a Messages server at baseURL. The SDK
// reads nothing from the environment (no key, profile or base URL of its
// own) and does not retry: the loop does, and records every provider
// error. key "" sends no x-api-key header.
func NewMessages(baseURL, key, model string, hc *http.Client) Model {
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithBaseURL(baseURL), option.WithMaxRetries(0)}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &messagesModel{client: anthropic.NewClient(opts...), model: model}
}

func (m *messagesModel) ErrorFlag() bool { return true }

func (m *messagesModel) Call(ctx context.Context, req *Request) (*Response, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(m.model), MaxTokens: DefaultAnthropicMaxTokens}
	if v := req.Params.MaxTokens; v != nil {
		p.MaxTokens = *v
	}
	add := func(user bool, b anthropic.ContentBlockParamUnion) {
		// Consecutive blocks of one role go in one message (all tool
		// results of a turn, a user text after them).
		if n := len(p.Messages); n > 0 {
			switch last := p.Messages[n-1]; {
			case user && last.OfUser != nil:
				last.OfUser.Content = append(last.OfUser.Content, b)
				return
			case !user && last.OfAssistant != nil:
				last.OfAssistant.Content = append(last.OfAssistant.Content, b)
				return
			}
		}
		if user {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(b))
		} else {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(b))
		}
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "system":
			p.System = append(p.System, anthropic.TextBlockParam{Text: msg.Content})
		case "user":
			add(true, anthropic.NewTextBlock(msg.Content))
		case "tool":
			tr := anthropic.ToolResultBlockParam{ToolUseID: msg.ToolCallID,
				Content: []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: msg.Content}}}}
			if msg.IsError {
				tr.IsError = anthropic.Bool(true)
			}
			add(true, anthropic.ContentBlockParamUnion{OfToolResult: &tr})
		case "assistant":
			if msg.Content != "" {
				add(false, anthropic.NewTextBlock(msg.Content))
			}
			for _, tc := range msg.ToolCalls {
				var input any = map[string]any{}
				if args, err := toolArguments(tc.Arguments); err == nil {
					input = args
				}
				add(false, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
		}
	}
	for _, t := range req.Tools {
		schema := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
		for k, v := range t.InputSchema {
			switch k {
			case "type":
			case "properties":
				schema.Properties = v
			case "required":
				if b, err := json.Marshal(v); err == nil {
					_ = json.Unmarshal(b, &schema.Required)
				}
			default:
				schema.ExtraFields[k] = v
			}
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	msg, err := m.client.Messages.New(ctx, p)
	if err != nil {
		var ae *anthropic.Error
		if errors.As(err, &ae) {
			return nil, &ProviderError{Status: ae.StatusCode, RetryAfter: retryAfter(ae.Response), Msg: escape.Shorten(escape.LineBreaks(ae.RawJSON()), 300)}
		}
		return nil, err
	}
	if msg.Type != "message" && len(msg.Content) == 0 {
		return nil, errors.New("the answer is not a message")
	}
	r := &Response{InputTokens: msg.Usage.InputTokens, OutputTokens: msg.Usage.OutputTokens}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			if r.Text != "" {
				r.Text += "\n"
			}
			r.Text += b.Text
		case "tool_use":
			args := string(b.Input)
			if args == "" {
				args = "{}"
			}
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	return r, nil
}
