package org.sonar.server.qualityprofile;

import org.sonar.server.rule.Rule;
import org.sonar.server.rule.RuleRepository;

public class RuleActivator {
  private final RuleRepository ruleRepository;
  private final QualityProfileRepository qualityProfileRepository;

  public RuleActivator(RuleRepository ruleRepository, QualityProfileRepository qualityProfileRepository) {
    this.ruleRepository = ruleRepository;
    this.qualityProfileRepository = qualityProfileRepository;
  }

  public void activate(QualityProfile qualityProfile, ActiveRule activeRule) {
    Rule rule = ruleRepository.selectByKey(activeRule.getRuleKey());
    for (QualityProfile child : qualityProfileRepository.selectChildren(qualityProfile.getQualityProfileKey())) {
      activateInherited(child, rule);
    }
  }
}
