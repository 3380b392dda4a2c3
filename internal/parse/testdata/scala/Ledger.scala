package org.example.ledger

import scala.collection.mutable
import java.time.Instant

/** One booking on an account. */
case class Entry(account: String, amount: BigDecimal, at: Instant)

trait Balances {
  def balance(account: String): BigDecimal
}

/**
 * An append-only ledger of entries.
 */
class Ledger extends Balances {
  private val entries = mutable.ArrayBuffer.empty[Entry]

  // Records an entry; zero amounts are refused.
  def record(e: Entry): Unit = {
    require(e.amount != 0, s"zero amount for account ${e.account}")
    // TODO: persist entries to disk
    entries += e
  }

  def balance(account: String): BigDecimal =
    entries.filter(_.account == account).map(_.amount).sum
}

object Ledger {
  val MaxEntries: Int = 100000

  def empty(): Ledger = new Ledger()
}

def formatAmount(amount: BigDecimal): String =
  f"$amount%.2f EUR".format(amount)

type AccountId = String
