def verify(v):
    v.rollout_complete("media", "thumbnailer")
    v.pods_ready("media", {"app": "thumbnailer"}, 1)
    v.service_has_ready_endpoints("media", "thumbnailer")
    # on the claim that holds the uploads, still bound to its volume
    v.field_is("Deployment", "media", "thumbnailer",
               "spec.template.spec.volumes[0].persistentVolumeClaim.claimName", "uploads")
    v.field_equals("v1", "PersistentVolumeClaim", "uploads", "spec.volumeName", "media-uploads",
                   namespace="media")
    v.uid_preserved("PersistentVolumeClaim", "media", "uploads")
    v.exact_resource_set("PersistentVolumeClaim", "media")
    v.uid_preserved("Deployment", "media", "thumbnailer")
    v.fields_unchanged("Deployment", "media", "thumbnailer",
                       ["spec.replicas", "spec.template.spec.containers[0].image"])
    v.no_bare_pods("media")
