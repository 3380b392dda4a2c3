package org.sonar.server.es;

public class EsClient {
  private final String host;

  public EsClient(String host) {
    this.host = host;
  }

  public <D> SearchResult<D> search(String indexType, String text, SearchOptions options, DocConverter<D> converter) {
    return SearchResult.empty();
  }

  public long count(String indexType, String term) {
    return 0;
  }

  public void index(String indexType, Object doc) {
  }
}
