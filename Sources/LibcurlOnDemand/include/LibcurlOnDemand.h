// libcurl loaded on first use instead of at process start (see LibcurlOnDemand.c for why and how).
// Nothing to call: linking this target is what gives FoundationNetworking the libcurl functions it calls.
#ifndef LIBCURL_ON_DEMAND_H
#define LIBCURL_ON_DEMAND_H
#endif
