/* curl-ceiling: the libcurl reference for Herald's provider clients. Plain C on libcurl's multi
 * interface doing the least a sender can do per request: easy handles reused, one header list for
 * every request, the body handed to curl without a copy, responses discarded. Herald's clients are
 * built on the same library, so this is what they are held to (BENCHMARKS.md), beside h2load.
 *
 *   cc -O2 -o curl-ceiling bench/curl-ceiling.c -lcurl -lpthread
 *   curl-ceiling --url URL --count N --connections C --streams S [--threads T] [--ca FILE]
 *                [--body FILE] [--expect STATUS] [-H 'name: value']...
 *
 * --threads T runs T multi handles, each on its own thread with C/T connections and N/T requests:
 * T = 1 is one curl thread for every connection, T = C a thread per connection. Prints one line with
 * the rate and the process's CPU time per request (user + system, from getrusage). */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *url, *ca;
static char *body;
static long body_length, expect = 200;
static struct curl_slist *headers;

struct lane {
    long count, connections, streams;
    long ok, bad;
};

static size_t discard(char *data, size_t size, size_t n, void *user) {
    (void)data;
    (void)user;
    return size * n;
}

static CURL *new_handle(void) {
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    if (ca) curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, body_length);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
    return easy;
}

static void *run(void *argument) {
    struct lane *lane = argument;
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, lane->connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, lane->streams);
    long window = lane->connections * lane->streams, started = 0, finished = 0;
    CURL **handles = calloc(window, sizeof *handles);
    for (long i = 0; i < window && started < lane->count; i++, started++) {
        handles[i] = new_handle();
        curl_multi_add_handle(multi, handles[i]);
    }
    while (finished < lane->count) {
        int running, left;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status == expect) lane->ok++;
            else lane->bad++;
            finished++;
            curl_multi_remove_handle(multi, easy);
            if (started < lane->count) {
                started++;
                curl_multi_add_handle(multi, easy);
            }
        }
        if (finished < lane->count) curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    for (long i = 0; i < window; i++)
        if (handles[i]) curl_easy_cleanup(handles[i]);
    free(handles);
    curl_multi_cleanup(multi);
    return NULL;
}

static int usage(void) {
    fprintf(stderr, "usage: curl-ceiling --url URL --count N --connections C --streams S [--threads T] [--ca FILE]\n"
                    "                    [--body FILE] [--expect STATUS] [-H 'name: value']...\n");
    return 2;
}

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    long count = 0, connections = 0, streams = 0, threads = 1;
    const char *body_file = NULL;
    curl_global_init(CURL_GLOBAL_ALL);
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) return usage();
        i++;
        if (!strcmp(option, "--url")) url = value;
        else if (!strcmp(option, "--count")) count = atol(value);
        else if (!strcmp(option, "--connections")) connections = atol(value);
        else if (!strcmp(option, "--streams")) streams = atol(value);
        else if (!strcmp(option, "--threads")) threads = atol(value);
        else if (!strcmp(option, "--ca")) ca = value;
        else if (!strcmp(option, "--body")) body_file = value;
        else if (!strcmp(option, "--expect")) expect = atol(value);
        else if (!strcmp(option, "-H")) headers = curl_slist_append(headers, value);
        else return usage();
    }
    if (!url || count < 1 || connections < 1 || streams < 1 || threads < 1 || threads > connections) return usage();
    body = calloc(1, 1);
    if (body_file) {
        FILE *file = fopen(body_file, "rb");
        if (!file) {
            perror(body_file);
            return 2;
        }
        fseek(file, 0, SEEK_END);
        body_length = ftell(file);
        rewind(file);
        body = realloc(body, body_length + 1);
        if (fread(body, 1, body_length, file) != (size_t)body_length) return 2;
        fclose(file);
    }
    headers = curl_slist_append(headers, "Expect:");

    struct lane *lanes = calloc(threads, sizeof *lanes);
    pthread_t *ids = calloc(threads, sizeof *ids);
    struct timespec start, end;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long t = 0; t < threads; t++) {
        /* Connections and requests shared out as evenly as they go. */
        lanes[t].connections = connections / threads + (t < connections % threads);
        lanes[t].count = count / threads + (t < count % threads);
        lanes[t].streams = streams;
        pthread_create(&ids[t], NULL, run, &lanes[t]);
    }
    long ok = 0, bad = 0;
    for (long t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        ok += lanes[t].ok;
        bad += lanes[t].bad;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    getrusage(RUSAGE_SELF, &after);
    double elapsed = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    double cpu = seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime);
    printf("curl-ceiling: %ld ok, %ld bad in %.2f s = %.0f/s, %.1f µs CPU per request "
           "(%ld thread(s), %ld connection(s) × %ld streams, %s)\n",
           ok, bad, elapsed, ok / elapsed, cpu * 1e6 / (ok + bad), threads, connections, streams, curl_version());
    return bad ? 1 : 0;
}
