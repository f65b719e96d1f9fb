// libcurl loaded on first use instead of at process start (see LibcurlOnDemand.c for why and how).
// Linking this target is what gives FoundationNetworking the libcurl functions it calls.
#ifndef LIBCURL_ON_DEMAND_H
#define LIBCURL_ON_DEMAND_H

// Loads libcurl if it is not loaded yet. NULL when it is there; else why not, in one line a user can act on
// ("libcurl is not installed: …; install it (…)"). Ask before making a URLSession: its first libcurl call
// otherwise ends the process with that line.
const char *places_libcurl_missing(void);

#endif
