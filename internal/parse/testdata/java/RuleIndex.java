package org.example.rules;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Indexes rules by key and by repository.
 */
public class RuleIndex implements Iterable<Rule> {
    public static final int MAX_RULES = 10000;

    private final Map<String, Rule> byKey = new HashMap<>();
    private int version;

    public RuleIndex() {
        this.version = 0;
    }

    /**
     * Adds a rule, replacing any rule with the same key.
     */
    public void add(Rule rule) {
        if (byKey.size() >= MAX_RULES) {
            throw new IllegalStateException("Rule index is full: " + rule.getKey());
        }
        // TODO: index rules by repository as well
        byKey.put(rule.getKey(), rule);
        version++;
    }

    @Override
    public java.util.Iterator<Rule> iterator() {
        return byKey.values().iterator();
    }

    public List<Rule> findByRepository(String repository) {
        return byKey.values().stream()
            .filter(r -> r.getRepository().equals(repository))
            .toList();
    }

    interface Listener {
        void onAdded(Rule rule);
    }

    enum Status { READY, STALE }
}
