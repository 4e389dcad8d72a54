// The API's words the forms offer: the values its filters and bodies accept. A test keeps these
// equal to the server's own lists.

export const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']
export const VIOLATION_TYPES = ['PRIVACY', 'SECURITY', 'POLICY']
export const ALERT_TYPES = ['high_risk_request', 'blocked_request', 'sensitive_output', 'withheld_output', 'blocked_output']
export const EVENT_KINDS = [
  'alert.created', 'alert.acknowledged', 'alert.resolved',
  'case.created', 'case.updated', 'case.resolved',
  'violation.detected', 'violation.resolved', 'compliance.score_changed',
  'usage.threshold_reached', 'usage.limit_exceeded',
]
/** What the usage statistics' spend is broken down by (`by=`). */
export const SPEND_DIMENSIONS = [['key', 'By key'], ['user', 'By user'], ['tag', 'By tag']]
/** Plans offered for new settings; `startup` is an alias of `pro`. */
export const PLANS = [['free', 'Free'], ['pro', 'Pro'], ['growth', 'Growth'], ['enterprise', 'Enterprise']]
