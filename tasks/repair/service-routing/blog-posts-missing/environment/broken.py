def broken(v):
    # the frontend runs but cannot reach the posts API: its Service routes to no pod port
    v.pods_in_state("blog", {"app": "frontend"}, "Running")
    v.pods_ready("blog", {"app": "frontend"}, 0)
    v.connectivity("blog/app=frontend", "posts-api:80", allowed=False)
    # the posts API itself is healthy
    v.rollout_complete("blog", "posts-api")
    v.pods_ready("blog", {"app": "posts-api"}, 2)
