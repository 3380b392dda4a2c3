package org.example.net

import java.io.IOException
import kotlinx.coroutines.delay

const val MAX_RETRIES = 3

/**
 * Downloads files with retries and a backoff.
 */
class Downloader(private val client: HttpClient) {
    private var attempts = 0

    // Fetches url, retrying on I/O errors.
    suspend fun fetch(url: String): ByteArray {
        repeat(MAX_RETRIES) { attempt ->
            try {
                return client.get(url)
            } catch (e: IOException) {
                attempts++
                // TODO: make the backoff configurable
                delay(backoff(attempt))
            }
        }
        throw IOException("giving up on $url after $MAX_RETRIES attempts")
    }

    companion object {
        fun default(): Downloader = Downloader(HttpClient())
    }
}

interface HttpClient {
    fun get(url: String): ByteArray
}

data class Progress(val done: Long, val total: Long)

object Stats {
    var downloads = 0
}

enum class Mode { FAST, SAFE }

fun backoff(attempt: Int): Long {
    return 100L * (1 shl attempt)
}
