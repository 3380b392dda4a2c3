package profiles

import (
	"context"
	"io"

	"example.com/sonar/api/rules"
)

type QualityProfile struct {
	QualityProfileKey string
	Language          string
	ActiveRules       []rules.Rule
}

func ExportQualityProfile(ctx context.Context, qp QualityProfile, w io.Writer) error {
	for _, rule := range qp.ActiveRules {
		if _, err := io.WriteString(w, rule.RuleKey+"="+rule.Severity+"\n"); err != nil {
			return err
		}
	}
	return nil
}

func QualityProfileRules(ctx context.Context, c *rules.Client, qp QualityProfile) ([]rules.Rule, error) {
	return c.SearchRules(ctx, rules.RuleQuery{QualityProfileKey: qp.QualityProfileKey})
}
