package org.sonar.server.engine;

class a {
  private final b c;
  private int d;

  a(b c) {
    this.c = c;
  }

  int e(int f, int g) {
    int x1 = c.h(f);
    if (x1 > g) {
      d = x1;
    }
    return d + c.i(g);
  }
}
