package org.sonar.server.qualityprofile;

import java.io.Reader;

public class QualityProfileImporter {
  private final QualityProfileRepository qualityProfileRepository;
  private final RuleActivator ruleActivator;

  public QualityProfileImporter(QualityProfileRepository qualityProfileRepository, RuleActivator ruleActivator) {
    this.qualityProfileRepository = qualityProfileRepository;
    this.ruleActivator = ruleActivator;
  }

  public QualityProfile importProfile(Reader reader, String language) {
    QualityProfile qualityProfile = new QualityProfile(readKey(reader), language);
    for (ActiveRule activeRule : readActiveRules(reader)) {
      ruleActivator.activate(qualityProfile, activeRule);
    }
    qualityProfileRepository.insert(qualityProfile);
    return qualityProfile;
  }
}
