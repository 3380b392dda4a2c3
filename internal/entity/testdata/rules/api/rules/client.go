package rules

import (
	"context"
	"fmt"
)

// Rule is a coding rule as the web service returns it.
type Rule struct {
	RuleKey  string
	Name     string
	Severity string
}

// RuleQuery filters a rule search.
type RuleQuery struct {
	Text              string
	QualityProfileKey string
}

type Client struct {
	baseURL string
}

func NewClient(baseURL string) *Client {
	return &Client{baseURL: baseURL}
}

func (c *Client) SearchRules(ctx context.Context, q RuleQuery) ([]Rule, error) {
	if q.Text == "" && q.QualityProfileKey == "" {
		return nil, fmt.Errorf("search rules: empty query")
	}
	return c.fetchRules(ctx, c.baseURL+"/api/rules/search", q)
}

func (c *Client) ShowRule(ctx context.Context, ruleKey string) (*Rule, error) {
	rules, err := c.fetchRules(ctx, c.baseURL+"/api/rules/show?key="+ruleKey, RuleQuery{})
	if err != nil || len(rules) == 0 {
		return nil, err
	}
	return &rules[0], nil
}

func (c *Client) fetchRules(ctx context.Context, url string, q RuleQuery) ([]Rule, error) {
	return nil, nil
}
