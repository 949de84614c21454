NS = "blog"


def verify(v):
    # the outcome: the posts API answers through its Service and the blog is up again
    v.healthy(NS, "posts-api")
    v.healthy(NS, "frontend")
    v.connectivity("blog/app=frontend", "posts-api:80")
    v.env("Deployment", NS, "frontend", "POSTS_API_URL", "http://posts-api", container="frontend")
    # the shape: where the posts-api Service forwards (its target port) is all a fix may
    # change; both Deployments, the frontend Service and the rest of the Service stay as
    # they were throughout, nothing deleted and recreated
    v.allow("Service", NS, "posts-api", ["spec.ports[name=http].targetPort"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
