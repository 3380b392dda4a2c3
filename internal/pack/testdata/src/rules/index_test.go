package rules

import "testing"

func TestActiveSorted(t *testing.T) {
	idx := NewRuleIndex([]*Rule{{Key: "b"}, {Key: "a"}}, map[string][]string{"p": {"b", "a"}})
	got, err := idx.Active("p")
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Key != "a" || got[1].Key != "b" {
		t.Errorf("not sorted: %v", got)
	}
}
