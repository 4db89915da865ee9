// Event subscriptions, event destinations and abuse reports of the service.
package service
