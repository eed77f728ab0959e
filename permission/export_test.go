package permission

// HTTPStatuses is the map of statuses, for TestHTTPStatuses.
var HTTPStatuses = httpStatus
