package rule

// Rule is a check run over every gist before it is published.
type Rule struct {
	Key         string
	Description string
	Severity    int
}

// RuleIndex finds rules by the words of their descriptions.
type RuleIndex struct {
	rules []Rule
}

// Search returns the rules whose description mentions the word.
func (r *RuleIndex) Search(word string) []Rule {
	var out []Rule
	for _, rule := range r.rules {
		if rule.Key == word {
			out = append(out, rule)
		}
	}
	return out
}
